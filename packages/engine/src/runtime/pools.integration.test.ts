import { afterEach, describe, expect, it } from 'vitest';
import { saveOrThrow, spawnWorker, stopWorkers, useWorlds, type WorkerProcess, expectExactDone } from '../../test/harness';
import { getRun } from '../runs/get-run';
import { listMessages } from '../runs/list-messages';
import { startRun } from '../runs/start-run';
import { waitForRun } from '../runs/wait-run';
import { parsePools, savedPools, servePools } from './pools';

const def = {
  format: 'trellis.mesh/v1',
  name: 'pooled',
  members: [
    { id: 'intake', kind: 'workflow', head: true, steps: [{ type: 'pass' }] },
    { id: 'score', kind: 'workflow', pool: 'agents', steps: [{ type: 'code', source: 'return { ...payload, score: payload.n * 10 }' }] },
  ],
  channels: [{ from: 'intake', to: 'score' }],
};

describe('named worker pools (Postgres, Redis)', () => {
  const worlds = useWorlds();
  const workers: WorkerProcess[] = [];
  // Registered after the worlds' hook, so it runs before it: worker processes stop before their database goes.
  afterEach(async () => {
    await stopWorkers(workers.splice(0));
  });

  it('leaves a member on pool agents pending until a worker for that pool runs, then completes', async () => {
    const world = await worlds.open();
    const meshId = await saveOrThrow(world, def);
    worlds.start(world, { pools: ['default'] });
    const { runId } = await startRun(world.engine, { meshId, input: { payload: { n: 4 } } });
    await new Promise((r) => setTimeout(r, 2_500));
    expect((await getRun(world.engine.db, runId))?.status).toBe('running');
    const waiting = await listMessages(world.engine.db, { runId, member: 'score' });
    expect(waiting.items.map((m) => [m.pool, m.status])).toEqual([['agents', 'pending']]);

    // A worker process for that pool alone (TRELLIS_POOLS), as `trellis worker --pool agents` starts.
    workers.push(await spawnWorker(world, { TRELLIS_POOLS: 'agents' }));
    const view = await waitForRun(world.engine.db, runId, { timeoutMs: 60_000 });
    await expectExactDone(world.engine.db, view.id);
    expect(view.output).toEqual({ n: 4, score: 40 });
  });

  it('serves every pool saved meshes name with *', async () => {
    const world = await worlds.open();
    await saveOrThrow(world, def);
    expect((await savedPools(world.engine)).sort()).toEqual(['agents', 'default']);
    const served = servePools(world.engine, 'saved', { refreshMs: 100 });
    try {
      const deadline = Date.now() + 5_000;
      while (served.served().length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      expect(served.served().sort()).toEqual(['agents', 'default']);
    } finally {
      await served.close();
    }
  });
});

describe('pool selections', () => {
  it('reads a pool, a list or *, and names the setting in errors', () => {
    expect(parsePools('agents', '--pool')).toEqual(['agents']);
    expect(parsePools('default, agents,agents', 'TRELLIS_POOLS')).toEqual(['default', 'agents']);
    expect(parsePools('*', 'TRELLIS_POOLS')).toBe('saved');
    expect(() => parsePools('agents:1', '--pool')).toThrow(/--pool names "agents:1"/);
    expect(() => parsePools('*,agents', 'TRELLIS_POOLS')).toThrow(/TRELLIS_POOLS mixes \*/);
    expect(() => parsePools(' , ', '--pool')).toThrow(/--pool is empty/);
  });
});
