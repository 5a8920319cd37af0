/**
 * Takeover 2 of issue 11: a code step with `writeDir` set to the sandbox folder overwrote the
 * sandbox runner, and every later code step ran as plain Node. Now the schema refuses `writeDir`;
 * a step that wants files gets a fresh directory the server makes under TRELLIS_SANDBOX_ROOT,
 * outside the application tree, removed afterwards; the sandbox runs as an unprivileged user when
 * Trellis runs as root (docs/security.md).
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { saveOrThrow, useWorlds } from '../../test/harness';
import { REPO_ROOT } from '../kernel/env';
import { saveMesh } from '../meshes/save-mesh';
import { resolveSandbox } from '../policy/sandbox-dir';
import { listMessages } from '../runs/list-messages';
import { startRun } from '../runs/start-run';
import { waitForRun } from '../runs/wait-run';

const SANDBOX = join(REPO_ROOT, 'packages', 'engine', 'sandbox');
const RUNNER = join(SANDBOX, 'code-runner.mjs');
const flow = (steps: unknown[]) => ({ format: 'trellis.mesh/v1', name: 'overwrite', members: [{ id: 'flow', kind: 'workflow', head: true, steps }], channels: [] });
const digest = () => createHash('sha256').update(readFileSync(RUNNER)).digest('hex');
const OVERWRITE = `await writeFile('code-runner.mjs', 'process.stdout.write(JSON.stringify({ ok: true, value: "pwned" }))'); return { wrote: true };`;

describe('takeover 2: writeDir chosen by the author', () => {
  const worlds = useWorlds();

  it('refuses writeDir, keeps scratch files inside a fresh directory of the step, and leaves the runner alone', async () => {
    const before = digest();
    const w = await worlds.open({ backoffMs: 50, attempts: 1 });
    worlds.start(w, { pools: ['default'] });
    const saved = await saveMesh(w.engine.db, { definition: flow([{ type: 'code', writeDir: SANDBOX, source: OVERWRITE }]) });
    expect(saved.ok).toBe(false);
    expect(JSON.stringify(saved)).toContain('steps[0].writeDir: is no longer accepted: the server picks the directory');

    const root = w.engine.guard.sandbox().root;
    const leftBefore = readdirSync(root).length;
    const climb = `await writeFile(${JSON.stringify(`../../../../../../../../..${RUNNER}`)}, 'pwned'); return { wrote: true };`;
    const meshId = await saveOrThrow(w, flow([{ type: 'code', scratchDir: true, source: climb }, { type: 'code', scratchDir: true, source: OVERWRITE }]));
    const { runId } = await startRun(w.engine, { meshId, input: { payload: {} } });
    const view = await waitForRun(w.engine.db, runId, { timeoutMs: 60_000 });
    expect(view.status).toBe('failed');
    const dead = await listMessages(w.engine.db, { runId, status: 'dead' });
    expect(dead.items[0]?.error).toContain('outside the granted directory');
    // Writing "code-runner.mjs" into its own scratch directory is harmless, and the directory is gone after.
    const meshId2 = await saveOrThrow(w, flow([{ type: 'code', scratchDir: true, source: OVERWRITE }, { type: 'code', source: 'return { after: 1 + 1 }' }]));
    const second = await startRun(w.engine, { meshId: meshId2, input: { payload: {} } });
    const after = await waitForRun(w.engine.db, second.runId, { timeoutMs: 60_000 });
    expect({ status: after.status, output: after.output }).toEqual({ status: 'done', output: { after: 2 } });
    expect(digest()).toBe(before);
    expect(readdirSync(root).length).toBe(leftBefore);
  }, 120_000);

  it('never puts the sandbox root inside the application tree, and runs sandboxes unprivileged under root', () => {
    expect(() => resolveSandbox({ root: SANDBOX, appRoot: REPO_ROOT })).toThrow('TRELLIS_SANDBOX_ROOT');
    const settings = resolveSandbox({ appRoot: REPO_ROOT });
    if (process.getuid?.() !== 0) return expect(settings.user).toBeUndefined();
    expect(settings.user).toMatchObject({ name: 'nobody' });
    expect(() => resolveSandbox({ appRoot: REPO_ROOT, user: 'no-such-user-x' })).toThrow('TRELLIS_SANDBOX_USER');
  });
});
