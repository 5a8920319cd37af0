import { describe, expect, it } from 'vitest';
import { expectExactDone, saveOrThrow, useWorlds, type TestWorld } from '../../test/harness';
import { until } from '../../test/recorder';
import { startOrchestrator } from '../runtime/orchestrator';
import { cancelRun } from './cancel-run';
import { getRun } from './get-run';
import { listMessages } from './list-messages';
import { startRun } from './start-run';
import { startEntryRun } from './start-entry-run';
import { SYSTEM_ACTOR } from '../audit/append';
import { waitForRun } from './wait-run';

const quick = (name: string, limits?: Record<string, number>, pool = 'default') => ({
  format: 'trellis.mesh/v1',
  name,
  members: [{ id: 'intake', kind: 'workflow', head: true, pool, steps: [{ type: 'pass' }] }],
  channels: [],
  ...(limits ? { limits } : {}),
});

async function runOf(world: TestWorld, runId: string) {
  const run = await getRun(world.engine.db, runId);
  if (!run) throw new Error(`no run ${runId}`);
  return run;
}

describe('concurrency limits per user and per mesh (Postgres)', () => {
  const worlds = useWorlds();

  it('holds a user\'s runs over TRELLIS_MAX_RUNS_PER_USER queued with no message, then runs them one after another, all done exact', async () => {
    const world = await worlds.open({ maxRunsPerUser: 1, tickMs: 200 });
    const meshId = await saveOrThrow(world, quick('per-user'));
    const started = [];
    for (let i = 0; i < 4; i++) started.push(await startRun(world.engine, { meshId, input: { payload: { n: i } }, userId: 'u1' }));
    expect(started.map((s) => s.status)).toEqual(['running', 'queued', 'queued', 'queued']);
    const [first, second, third, fourth] = await Promise.all(started.map((s) => runOf(world, s.runId)));
    expect(first?.status).toBe('running');
    expect(second).toMatchObject({ status: 'queued', startedAt: null, admission: { verdict: 'wait', resource: 'user_runs', behind: 0, waitLimitSeconds: 3600 } });
    expect(second?.admissionLine).toBe('Waits for your other run to finish: user limit of 1 concurrent run (policy TRELLIS_MAX_RUNS_PER_USER).');
    expect(third?.admissionLine).toBe('Waits for your other run to finish: user limit of 1 concurrent run (policy TRELLIS_MAX_RUNS_PER_USER); 1 run held before it.');
    expect(fourth?.admission).toMatchObject({ resource: 'user_runs', behind: 2 });
    // Held means held: no message row, so neither a worker nor the relay can start it.
    for (const s of started.slice(1)) expect((await listMessages(world.engine.db, { runId: s.runId })).items).toEqual([]);
    // Another user is not held by u1's runs; a held run can be cancelled.
    expect((await startRun(world.engine, { meshId, input: { payload: {} }, userId: 'u2' })).status).toBe('running');
    await cancelRun(world.engine, { runId: started[3]?.runId ?? '', reason: 'not needed' });

    worlds.start(world, { pools: ['default'] });
    const runIds = started.slice(0, 3).map((s) => s.runId);
    for (const runId of runIds) {
      await waitForRun(world.engine.db, runId, { timeoutMs: 20_000 });
      await expectExactDone(world.engine.db, runId);
      // The head message the release wrote, and the one it led to: a run with none would also end `done`.
      expect((await listMessages(world.engine.db, { runId })).items.map((m) => [m.member, m.status])).toEqual([['intake', 'done']]);
    }
    const ran = await Promise.all(runIds.map((id) => runOf(world, id)));
    // One after another, oldest first: each held run started only once the one before it ended.
    for (let i = 1; i < ran.length; i++) {
      const before = ran[i - 1];
      const after = ran[i];
      expect(after?.startedAt?.getTime()).toBeGreaterThanOrEqual(before?.endedAt?.getTime() ?? Infinity);
    }
    const released = ran[1]?.admission;
    expect(released?.verdict === 'wait' && released.resource === 'user_runs' && typeof released.releasedAt).toBe('string');
    const cancelled = await runOf(world, started[3]?.runId ?? '');
    expect(cancelled.status).toBe('cancelled');
    expect((await listMessages(world.engine.db, { runId: cancelled.id })).items).toEqual([]);
  });

  it('lets exactly one of several simultaneous starts pass a limit of 1', async () => {
    const world = await worlds.open({ maxRunsPerUser: 1 });
    const meshId = await saveOrThrow(world, quick('race'));
    const starts = await Promise.all(Array.from({ length: 6 }, (_, i) => startRun(world.engine, { meshId, input: { payload: { n: i } }, userId: 'u1' })));
    expect(starts.filter((s) => s.status === 'running')).toHaveLength(1);
    const statuses = await Promise.all(starts.map(async (s) => (await runOf(world, s.runId)).status));
    expect(statuses.filter((s) => s === 'running')).toHaveLength(1);
    expect(statuses.filter((s) => s === 'queued')).toHaveLength(5);
  });

  it("a mesh's limits.maxConcurrentRuns lowers the admin's cap; one above it is clamped to the cap, saying so; runs with no user count against the mesh", async () => {
    const world = await worlds.open({ maxRunsPerMesh: 3 });
    const lower = await saveOrThrow(world, quick('lower', { maxConcurrentRuns: 1 }));
    // No user (a schedule or webhook): only the mesh's limit applies.
    expect((await startRun(world.engine, { meshId: lower, input: { payload: {} } })).status).toBe('running');
    // A schedule's start (the system actor) is held by the mesh's limit, and its answer says so.
    const held = await startEntryRun(world.engine, { mesh: { id: lower }, input: { payload: {} }, entry: 'schedule', actor: SYSTEM_ACTOR, idempotencyKey: 'schedule:s1:tick' });
    expect(held).toMatchObject({ status: 'queued', reused: false });
    expect((await runOf(world, held.runId)).admissionLine).toBe(
      "Waits for the other run of mesh lower to finish: mesh limit of 1 concurrent run (the mesh's limits.maxConcurrentRuns, below policy TRELLIS_MAX_RUNS_PER_MESH of 3).",
    );

    const higher = await saveOrThrow(world, quick('higher', { maxConcurrentRuns: 5 }));
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await startRun(world.engine, { meshId: higher, input: { payload: { i } }, userId: `u${i}` })).status);
    expect(statuses).toEqual(['running', 'running', 'running', 'queued']);
    const last = await runOf(world, (await startRun(world.engine, { meshId: higher, input: { payload: {} } })).runId);
    expect(last.admission).toMatchObject({ verdict: 'wait', resource: 'mesh_runs', behind: 1 });
    expect(last.admissionLine).toBe(
      "Waits for one of the 3 runs of mesh higher to finish: mesh limit of 3 concurrent runs (policy TRELLIS_MAX_RUNS_PER_MESH; the mesh's limits.maxConcurrentRuns of 5 is above it and is clamped to it); 1 run held before it.",
    );
  });

  it('fails a run held past its wait limit with capacity_wait_exceeded and the hold sentence', async () => {
    const world = await worlds.open({ maxRunsPerUser: 1, tickMs: 200 });
    // The user's first run waits for a worker on a pool nobody serves, under the default wait limit.
    const busy = await saveOrThrow(world, quick('busy', undefined, 'gpu'));
    const brief = await saveOrThrow(world, quick('brief', { capacityWaitSeconds: 1 }));
    const first = await startRun(world.engine, { meshId: busy, input: { payload: {} }, userId: 'u1' });
    const { runId, status } = await startRun(world.engine, { meshId: brief, input: { payload: {} }, userId: 'u1' });
    expect(status).toBe('queued');
    const orchestrator = startOrchestrator(world.engine);
    try {
      const failed = await until(async () => {
        const run = await runOf(world, runId);
        return run.status === 'failed' ? run : undefined;
      }, 'the held run to fail', 15_000);
      expect(failed.cause).toBe('capacity_wait_exceeded');
      expect(failed.causeMessage).toMatch(
        /^The run waited too long for capacity: it waited \d+ s, past its limit of 1 s\. Waits for your other run to finish: user limit of 1 concurrent run \(policy TRELLIS_MAX_RUNS_PER_USER\)\.$/,
      );
      expect(failed.admission?.verdict === 'wait' && typeof failed.admission.settledAt).toBe('string');
      expect((await listMessages(world.engine.db, { runId })).items).toEqual([]);
      expect((await runOf(world, first.runId)).status).toBe('running');
    } finally {
      await orchestrator.close();
    }
  });
});
