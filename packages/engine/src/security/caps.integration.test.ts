// Caps that keep one mesh author from starving everyone, each refusal naming its cap: branches
// per split, messages per run, mesh definition size and depth, and prototype keys in step outputs.
import { sql } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import { saveOrThrow, useWorlds, type TestWorld } from '../../test/harness';
import { LimitExceededError } from '../kernel/errors';
import { saveMesh } from '../meshes/save-mesh';
import { getRun } from '../runs/get-run';
import { listMessages } from '../runs/list-messages';
import { startRun } from '../runs/start-run';
import { waitForRun } from '../runs/wait-run';
import { overrideLimits } from './env';

/** `mapFirst`: a map step before the split, so admission cannot foresee the parts (runs/admission-caps.ts) and the split's own guard decides. */
const splitMesh = (name: string, mapFirst = false) => ({
  format: 'trellis.mesh/v1',
  name,
  members: [
    { id: 'cut', kind: 'workflow', head: true, steps: [...(mapFirst ? [{ type: 'map', fields: { text: 'doc' } }] : []), { type: 'split', by: 'word', field: 'text' }] },
    { id: 'echo', kind: 'workflow', steps: [{ type: 'pass' }] },
  ],
  channels: [{ from: 'cut', to: 'echo' }],
});

describe('caps', () => {
  const worlds = useWorlds();
  let restore: (() => void) | undefined;
  afterEach(() => {
    restore?.();
    restore = undefined;
  });

  async function run(world: TestWorld, definition: unknown, payload: unknown) {
    const meshId = await saveOrThrow(world, definition);
    worlds.start(world);
    const { runId } = await startRun(world.engine, { meshId, input: { payload } });
    return waitForRun(world.engine.db, runId, { timeoutMs: 60_000 });
  }

  it('fails a split past TRELLIS_MAX_SPLIT_BRANCHES that admission could not foresee with budget_spent naming the cap', async () => {
    restore = overrideLimits({ maxSplitBranches: 5 });
    const world = await worlds.open({ backoffMs: 20 });
    const view = await run(world, splitMesh('wide', true), { doc: 'a b c d e f g' });
    expect(view.status).toBe('failed');
    expect(view.cause).toBe('budget_spent');
    expect(view.causeMember).toBe('cut');
    expect(view.causeMessage).toMatch(/sent 7 parts, over TRELLIS_MAX_SPLIT_BRANCHES \(5\)/);
    const within = await run(world, splitMesh('narrow'), { text: 'a b c d e' });
    expect(within.status).toBe('done');
  }, 60_000);

  it('fails a run past TRELLIS_MAX_RUN_MESSAGES and publishes nothing past the cap', async () => {
    restore = overrideLimits({ maxRunMessages: 4 });
    const world = await worlds.open();
    const view = await run(world, splitMesh('many'), { text: 'a b c d e' });
    expect(view.status).toBe('failed');
    expect(view.cause).toBe('budget_spent');
    expect(view.causeMessage).toMatch(/the run reached 6 messages, over TRELLIS_MAX_RUN_MESSAGES \(4\)/);
    const echoes = await listMessages(world.engine.db, { runId: view.id, member: 'echo' });
    expect(echoes.items).toHaveLength(0);
    const fits = await run(world, splitMesh('few'), { text: 'a b c' });
    expect(fits.status).toBe('done');
  }, 60_000);

  it('refuses a mesh definition over TRELLIS_MAX_MESH_BYTES on save, naming the cap', async () => {
    const world = await worlds.open();
    const big = { ...splitMesh('big'), members: [{ id: 'a', kind: 'agent', head: true, model: 'demo', instructions: 'x'.repeat(2 * 1024 * 1024) }] };
    const err = await saveMesh(world.engine.db, { definition: big }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LimitExceededError);
    expect((err as LimitExceededError).message).toMatch(/the mesh definition is \d+ bytes, over TRELLIS_MAX_MESH_BYTES \(1048576 bytes\)/);
    const asText = await saveMesh(world.engine.db, { definition: JSON.stringify(big) }).catch((e: unknown) => e);
    expect((asText as LimitExceededError).cap).toBe('TRELLIS_MAX_MESH_BYTES');
  });

  it('answers a 100,000-level nested definition with the depth cap, as text and as a value', async () => {
    const world = await worlds.open();
    const deep = `{"format":"trellis.mesh/v1","name":"deep","members":[{"id":"a","kind":"agent","model":"demo","outputSchema":${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}}],"channels":[]}`;
    const err = await saveMesh(world.engine.db, { definition: deep }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LimitExceededError);
    expect((err as Error).message).toMatch(/nests 100003 levels deep, over TRELLIS_MAX_JSON_DEPTH \(64\)/);
    const value: unknown = JSON.parse(deep);
    const err2 = await saveMesh(world.engine.db, { definition: value }).catch((e: unknown) => e);
    expect((err2 as LimitExceededError).cap).toBe('TRELLIS_MAX_JSON_DEPTH');
  });

  it('strips __proto__, constructor and prototype keys from step outputs before they are stored', async () => {
    const world = await worlds.open();
    const source = 'return JSON.parse(\'{"ok":1,"__proto__":{"admin":true},"nested":{"constructor":{"prototype":{"x":1}},"keep":2}}\');';
    const def = {
      format: 'trellis.mesh/v1',
      name: 'proto',
      members: [
        { id: 'code', kind: 'workflow', head: true, steps: [{ type: 'code', source, timeoutMs: 20_000 }] },
        { id: 'next', kind: 'workflow', steps: [{ type: 'pass' }] },
      ],
      channels: [{ from: 'code', to: 'next' }],
    };
    const view = await run(world, def, { text: 'x' });
    expect(view.status).toBe('done');
    const next = await listMessages(world.engine.db, { runId: view.id, member: 'next' });
    const payload = next.items[0]?.payload as Record<string, unknown>;
    expect(Object.keys(payload)).toEqual(['ok', 'nested']);
    expect(Object.keys(payload.nested as object)).toEqual(['keep']);
    expect(JSON.stringify(view.output)).not.toMatch(/__proto__|constructor|prototype/);
  }, 60_000);

  it('drops prototype keys from a run input, and from rows stored before outputs were cleaned', async () => {
    const world = await worlds.open();
    const payload: unknown = JSON.parse('{"text":"a","constructor":{"x":1},"inner":{"__proto__":{"admin":true}}}');
    const view = await run(world, splitMesh('proto-input'), payload);
    expect(view.status).toBe('done');
    expect(view.input).toEqual({ text: 'a', inner: {} });
    // A payload written by an older version, straight into the table.
    await world.engine.db.execute(sql`update messages set payload = '{"ok":1,"__proto__":{"admin":true}}'::jsonb where run_id = ${view.id}`);
    const trail = await listMessages(world.engine.db, { runId: view.id });
    for (const m of trail.items) expect(m.payload).toEqual({ ok: 1 });
    await world.engine.db.execute(sql`update runs set output = '{"prototype":1,"ok":2}'::jsonb where id = ${view.id}`);
    expect((await getRun(world.engine.db, view.id))?.output).toEqual({ ok: 2 });
  }, 60_000);
});
