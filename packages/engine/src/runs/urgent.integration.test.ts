import { describe, expect, it } from 'vitest';
import { expectExactDone, saveOrThrow, useWorlds, type TestWorld } from '../../test/harness';
import { until } from '../../test/recorder';
import { perWordMesh as mesh, timedAgent, words } from '../../test/lanes';
import { BadInputError, RunNotFoundError } from '../kernel/errors';
import { jobKey } from '../kernel/queues';
import { IdRow, rows } from '../kernel/sql';
import { sql } from 'drizzle-orm';
import { setMeshUrgent } from '../meshes/set-urgent';
import { cancelRun } from './cancel-run';
import { markUrgent, markUrgentRuns, RunNotOpenError } from './mark-urgent';
import { startRun } from './start-run';
import { waitForRun } from './wait-run';

/** How many of the run's `slow` messages have a job in the lane of pool `work`. */
async function jobsIn(world: TestWorld, runId: string, lane: 'normal' | 'urgent'): Promise<number> {
  const ids = await rows(world.engine.db, sql`select id from messages where run_id = ${runId} and member = 'slow'`, IdRow);
  if (ids.length === 0) return 0;
  const found = await Promise.all(ids.map((m) => world.engine.redis.exists(jobKey(world.prefix, 'work', m.id, lane))));
  return found.filter((n) => n === 1).length;
}

describe('priority lanes (Postgres, Redis)', () => {
  const worlds = useWorlds();

  it('starts an urgent run ahead of a backlog, while normal work keeps its reserved share', async () => {
    const agent = timedAgent(20);
    const world = await worlds.open({ runAgent: agent.runAgent, reservedShare: 0.25 });
    const normalMesh = await saveOrThrow(world, mesh('backlog'));
    const urgentMesh = await saveOrThrow(world, mesh('hurry'));
    await setMeshUrgent(world.engine.db, { meshId: urgentMesh, urgent: true, actor: { id: null, email: null } });
    worlds.start(world, { pools: ['default', 'work'], concurrency: 4 });
    const backlog = await startRun(world.engine, { meshId: normalMesh, input: { text: words('b', 300) } });
    await until(() => (agent.starts.length >= 8 ? true : undefined), 'the backlog to start');
    const urgent = await startRun(world.engine, { meshId: urgentMesh, input: { text: words('u', 40) } });
    const urgentDone = await waitForRun(world.engine.db, urgent.runId, { timeoutMs: 20_000 });
    expect(urgentDone.status).toBe('done');
    const us = agent.starts.filter((s) => s.tag === 'u');
    const first = us[0]?.at ?? Infinity;
    const last = us[us.length - 1]?.at ?? Infinity;
    const normalBefore = agent.starts.filter((s) => s.tag === 'b' && s.at <= first).length;
    // Far ahead of the 300 backlog parts: FIFO would start it only after all of them.
    expect(us).toHaveLength(40);
    expect(normalBefore).toBeLessThan(100);
    // While the urgent run went, normal work kept moving at about its share (1 of 4 slots).
    const normalDuring = agent.starts.filter((s) => s.tag === 'b' && s.at > first && s.at <= last).length;
    const share = normalDuring / (normalDuring + us.length);
    console.log(`urgent first start after ${normalBefore} backlog starts; normal share while urgent ran ${share.toFixed(2)} (reserved 0.25)`);
    expect(share).toBeGreaterThanOrEqual(0.12);
    await expectExactDone(world.engine.db, urgent.runId);
    await waitForRun(world.engine.db, backlog.runId, { timeoutMs: 30_000 });
    await expectExactDone(world.engine.db, backlog.runId);
  }, 60_000);

  it('moves a run marked while waiting to the urgent lane: every job once, none lost', async () => {
    const agent = timedAgent(15);
    const world = await worlds.open({ runAgent: agent.runAgent });
    const meshId = await saveOrThrow(world, mesh('later'));
    worlds.start(world, { pools: ['default', 'work'], concurrency: 2 });
    // A backlog of 200 parts (about 1.5 s at two slots) so no part of the second run can start before it is marked, even on a loaded machine.
    const first = await startRun(world.engine, { meshId, input: { text: words('a', 200) } });
    // The second run starts once the first run's parts are queued, so its parts are surely behind them
    // (two splits committed in one batch may add their jobs in either order).
    await until(async () => ((await jobsIn(world, first.runId, 'normal')) >= 180 ? true : undefined), 'the first run queued');
    const second = await startRun(world.engine, { meshId, input: { text: words('m', 60) } });
    // The second run's 60 parts wait in the normal lane behind the first run's.
    await until(async () => ((await jobsIn(world, second.runId, 'normal')) === 60 ? true : undefined), 'the second run queued');
    const mStartedBefore = agent.starts.filter((s) => s.tag === 'm').length;
    const result = await markUrgentRuns(world.engine, { runIds: [second.runId] });
    expect(result.marked).toEqual([second.runId]);
    // Every part not started yet moved (a part in hand stays where it is and finishes there).
    expect(result.moved).toBe(60 - mStartedBefore);
    expect(mStartedBefore).toBe(0);
    expect(await jobsIn(world, second.runId, 'normal')).toBe(0);
    expect(await jobsIn(world, second.runId, 'urgent')).toBeGreaterThan(50);
    // Again: idempotent, nothing left to move.
    expect((await markUrgentRuns(world.engine, { runIds: [second.runId] })).moved).toBe(0);
    await waitForRun(world.engine.db, second.runId, { timeoutMs: 20_000 });
    const aDoneBeforeM = agent.starts.filter((s) => s.tag === 'a').length;
    expect(aDoneBeforeM).toBeLessThan(200);
    await waitForRun(world.engine.db, first.runId, { timeoutMs: 30_000 });
    for (const run of [first, second]) await expectExactDone(world.engine.db, run.runId);
    // Each word's step ran exactly once.
    const counts = new Map<string, number>();
    for (const s of agent.starts) counts.set(s.word, (counts.get(s.word) ?? 0) + 1);
    expect(counts.size).toBe(260);
    expect([...counts.values()].every((n) => n === 1)).toBe(true);
  }, 60_000);

  it('refuses what cannot be marked, naming why', async () => {
    const world = await worlds.open();
    const meshId = await saveOrThrow(world, mesh('refusals'));
    const run = await startRun(world.engine, { meshId, input: { text: 'x' } });
    await cancelRun(world.engine, { runId: run.runId });
    await expect(markUrgent(world.engine, { runId: run.runId })).rejects.toBeInstanceOf(RunNotOpenError);
    await expect(markUrgent(world.engine, { runId: 'no-such-run' })).rejects.toBeInstanceOf(RunNotFoundError);
    await expect(markUrgentRuns(world.engine, { runIds: [] })).rejects.toThrow(BadInputError);
    const mixed = await markUrgentRuns(world.engine, { runIds: [run.runId, 'no-such-run'] });
    expect(mixed).toEqual({
      marked: [],
      moved: 0,
      refused: [
        { runId: run.runId, reason: 'it has already ended (cancelled)' },
        { runId: 'no-such-run', reason: 'no such run' },
      ],
    });
  });
});
