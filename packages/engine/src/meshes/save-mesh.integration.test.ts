import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WORD_SPLIT, openWorld, type TestWorld } from '../../test/harness';
import { getMesh } from './get-mesh';
import { listMeshes } from './list-meshes';
import { saveMesh } from './save-mesh';
import { seedExampleMeshes } from './seed-examples';

describe('mesh use cases (pglite)', () => {
  let world: TestWorld;
  beforeEach(async () => {
    world = await openWorld('pglite');
  });
  afterEach(async () => {
    await world.close();
  });

  it('creates version 1, saves nothing when unchanged, and bumps on change', async () => {
    const db = world.engine.db;
    const first = await saveMesh(db, { definition: WORD_SPLIT });
    expect(first).toMatchObject({ ok: true, version: 1, created: true, unchanged: false });
    const same = await saveMesh(db, { definition: JSON.parse(WORD_SPLIT) as unknown });
    expect(same).toMatchObject({ ok: true, version: 1, unchanged: true });
    const changed = { ...(JSON.parse(WORD_SPLIT) as object), description: 'edited' };
    const second = await saveMesh(db, { definition: changed, baseVersion: 1 });
    expect(second).toMatchObject({ ok: true, version: 2 });
    const view = await getMesh(db, { name: 'word-split' });
    expect(view?.latestVersion).toBe(2);
    expect(view?.versions.map((v) => v.version)).toEqual([1, 2]);
    expect((await getMesh(db, { name: 'word-split', version: 1 }))?.definition.description).not.toBe('edited');
    expect((await listMeshes(db)).map((m) => [m.name, m.latestVersion])).toEqual([['word-split', 2]]);
  });

  it('refuses a save based on an older version as a conflict', async () => {
    const db = world.engine.db;
    await saveMesh(db, { definition: WORD_SPLIT });
    await saveMesh(db, { definition: { ...(JSON.parse(WORD_SPLIT) as object), description: 'v2' }, baseVersion: 1 });
    const stale = await saveMesh(db, { definition: { ...(JSON.parse(WORD_SPLIT) as object), description: 'v3' }, baseVersion: 1 });
    expect(stale).toMatchObject({ ok: false, reason: 'conflict', latestVersion: 2 });
  });

  it('refuses importing a file whose name is taken by saying so and how to go on', async () => {
    const db = world.engine.db;
    await saveMesh(db, { definition: WORD_SPLIT });
    const again = await saveMesh(db, { definition: { ...(JSON.parse(WORD_SPLIT) as object), description: 'other' }, baseVersion: 0 });
    expect(again).toMatchObject({ ok: false, reason: 'conflict', latestVersion: 1 });
    if (!again.ok) {
      expect(again.message).toBe(
        'a mesh named word-split already exists (its latest version is 1); nothing was saved: give it another "name" to make a new mesh, or open word-split and use Import on its canvas to add the file as its next version',
      );
    }
    expect((await listMeshes(db)).map((m) => [m.name, m.latestVersion])).toEqual([['word-split', 1]]);
  });

  it('refuses an unreadable file whole and saves nothing', async () => {
    const db = world.engine.db;
    const bad = await saveMesh(db, { definition: '{"format":"trellis.mesh/v9","name":"x","members":[],"channels":[]}' });
    expect(bad).toMatchObject({ ok: false, reason: 'invalid' });
    if (!bad.ok) expect(bad.findings[0]?.code).toBe('format_unsupported');
    expect(await saveMesh(db, { definition: 'not json' })).toMatchObject({ ok: false, reason: 'invalid' });
    expect(await listMeshes(db)).toEqual([]);
  });

  it('keeps a draft with validation errors and reports them', async () => {
    const draft = { format: 'trellis.mesh/v1', name: 'draft', members: [{ id: 'a', kind: 'agent', model: 'demo' }], channels: [] };
    const saved = await saveMesh(world.engine.db, { definition: draft });
    expect(saved.ok).toBe(true);
    if (saved.ok) expect(saved.findings.map((f) => f.code)).toContain('head_missing');
  });

  it('seeds example meshes once and never overwrites', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'trellis-seed-'));
    writeFileSync(join(dir, 'word-split.json'), WORD_SPLIT);
    writeFileSync(join(dir, 'broken.json'), '{');
    const first = await seedExampleMeshes(world.engine.db, dir);
    expect(first.seeded).toEqual(['word-split']);
    expect(first.refused.map((r) => r.file)).toEqual(['broken.json']);
    expect((await seedExampleMeshes(world.engine.db, dir)).skipped).toEqual(['word-split']);
  });
});
