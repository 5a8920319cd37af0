import { afterEach, describe, expect, it } from 'vitest';
import { useWorlds, type TestWorld } from '../../../test/harness';
import { saveMesh } from '../../meshes/save-mesh';
import { startRun } from '../../runs/start-run';
import { waitForRun } from '../../runs/wait-run';
import { closeWarmPool, poolKey, warmPoolSnapshot } from './steps/code-pool';

const mesh = (source: string) => ({
  format: 'trellis.mesh/v1',
  name: 'warm-code',
  members: [{ id: 'flow', kind: 'workflow', head: true, steps: [{ type: 'code', source }] }],
  channels: [],
});

async function save(world: TestWorld, source: string, userId: string): Promise<string> {
  const saved = await saveMesh(world.engine.db, { definition: mesh(source), userId });
  if (!saved.ok) throw new Error(`mesh refused: ${saved.message}`);
  return saved.meshId;
}

async function runOnce(world: TestWorld, meshId: string, input: unknown): Promise<unknown> {
  const { runId } = await startRun(world.engine, { meshId, input: { payload: input } });
  const view = await waitForRun(world.engine.db, runId, { timeoutMs: 30_000, pollMs: 20 });
  expect(view.status).toBe('done');
  return view.output;
}

afterEach(() => closeWarmPool());

describe('code steps of a delivery in warm sandboxes (Postgres, Redis)', () => {
  const worlds = useWorlds();

  it('keys the warm process by the mesh version and the user who saved it', async () => {
    const world = await worlds.open();
    worlds.start(world, { pools: ['default'], concurrency: 8 });
    const meshId = await save(world, 'return { by: "v1", n: payload.n };', 'alice');
    await expect(runOnce(world, meshId, { n: 1 })).resolves.toEqual({ by: 'v1', n: 1 });
    await expect(runOnce(world, meshId, { n: 2 })).resolves.toEqual({ by: 'v1', n: 2 });
    const first = warmPoolSnapshot().filter((w) => w.key === poolKey({ meshId, version: 1, author: 'alice' }));
    expect(first).toHaveLength(1);
    expect(first[0]?.served).toBe(2);

    await save(world, 'return { by: "v2", n: payload.n };', 'bob');
    await expect(runOnce(world, meshId, { n: 3 })).resolves.toEqual({ by: 'v2', n: 3 });
    const second = warmPoolSnapshot().filter((w) => w.key === poolKey({ meshId, version: 2, author: 'bob' }));
    expect(second).toHaveLength(1);
    expect(second[0]?.pid).not.toBe(first[0]?.pid);
  });
});
