/**
 * Claims and the outbox across real worker processes (`tsx workers/worker/src/main.ts`) on
 * Postgres: a worker killed or frozen mid-run loses its BullMQ lock and another takes the same
 * message ids; a worker killed between its commit and adding the children's jobs leaves rows the
 * relay turns into jobs. Locks are shortened through the environment so a lapse takes seconds.
 */
import { QueueEvents } from 'bullmq';
import { sql } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import { licensesText, pages, REDIS_URL, WORD_SPLIT, exactness, saveOrThrow, spawnWorker, stopWorkers, type TestWorld, type WorkerProcess, useWorlds, expectExactDone } from '../../test/harness';
import { queueName } from '../kernel/queues';
import { startRun } from '../runs/start-run';
import { waitForRun } from '../runs/wait-run';
import { rows, textArray } from '../kernel/sql';
import { startOrchestrator, type RunningOrchestrator } from './orchestrator';

/**
 * A 3 s lock checked every second: a dead or frozen worker's jobs move within ~4 s. The inline lane
 * is off (TRELLIS_INLINE_MAX 0) so every message is a BullMQ job whose lock can lapse: these tests
 * are about BullMQ claims; the lane's own kill test is runtime/inline-crash.integration.test.ts.
 */
const SHORT_LOCKS = { TRELLIS_LOCK_DURATION_MS: '3000', TRELLIS_STALLED_INTERVAL_MS: '1000', TRELLIS_INLINE_MAX: '0' };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function doneCount(world: TestWorld, runId: string): Promise<number> {
  const [r] = await rows<{ n: number }>(world.engine.db, sql`select count(*)::int as n from messages where run_id = ${runId} and status = 'done'`);
  return r?.n ?? 0;
}

describe('claims and the outbox across worker processes', () => {
  const worlds = useWorlds();
  let workers: WorkerProcess[] = [];
  let orchestrator: RunningOrchestrator | undefined;
  let events: QueueEvents | undefined;
  // Registered after the worlds' hook, so it runs before it: processes and listeners stop before their world closes.
  afterEach(async () => {
    await stopWorkers(workers);
    workers = [];
    await orchestrator?.close();
    await events?.close();
    orchestrator = undefined;
    events = undefined;
  });

  it('a killed worker and a frozen one lose their claims; others take the same ids and the run ends exact', { timeout: 150_000 }, async () => {
    // The relay is part of the story: a worker killed after a commit but before its addBulk leaves
    // rows without jobs, which only the relay turns into jobs.
    const world = await worlds.open({ tickMs: 500, relayAfterMs: 1_000 });
    const meshId = await saveOrThrow(world, WORD_SPLIT);
    events = new QueueEvents(queueName('default'), { connection: { url: REDIS_URL }, prefix: world.prefix });
    const stalled = new Set<string>();
    events.on('stalled', ({ jobId }) => stalled.add(jobId));
    await events.waitUntilReady();
    workers = await Promise.all([0, 1, 2].map(() => spawnWorker(world, SHORT_LOCKS)));
    orchestrator = startOrchestrator(world.engine);
    const [killed, frozen] = workers as [WorkerProcess, WorkerProcess, WorkerProcess];

    // The first three pages of licenses.txt (~4,000 messages): long enough to be mid-run when the
    // faults hit, short enough for the suite on a shared two-CPU machine.
    const doc = pages(licensesText(), 3);
    const { runId } = await startRun(world.engine, { meshId, input: { bytes: doc } });
    while ((await doneCount(world, runId)) < 300) await sleep(20);
    killed.signal('SIGKILL');
    frozen.signal('SIGSTOP');
    await sleep(7_000); // more than twice the 3 s lock: its jobs lapse and move to the live worker
    frozen.signal('SIGCONT');
    expect(await killed.exited).toBe('SIGKILL');

    const view = await waitForRun(world.engine.db, runId, { timeoutMs: 80_000 });
    await expectExactDone(world.engine.db, view.id);
    expect(Buffer.from((view.output as { text: string }).text, 'utf8').equals(doc)).toBe(true);
    const ex = await exactness(world.engine.db, runId);
    expect(ex).toMatchObject({ notDone: 0, duplicateJoins: 0, unfiredJoins: 0 });
    expect(ex.delivered).toBe(ex.published);
    // The lapsed jobs were handed on under their own ids, and those very messages are done.
    expect(stalled.size).toBeGreaterThan(0);
    const [left] = await rows<{ n: number }>(
      world.engine.db,
      sql`select count(*)::int as n from messages where id = any(${textArray([...stalled])}) and status <> 'done'`,
    );
    expect(left?.n).toBe(0);
  });

  it('a worker killed between its commit and adding the jobs: the relay adds them, nothing lost or doubled', async () => {
    const world = await worlds.open({ tickMs: 200, relayAfterMs: 500 });
    const meshId = await saveOrThrow(world, WORD_SPLIT);
    const crasher = await spawnWorker(world, { ...SHORT_LOCKS, TRELLIS_TEST_CRASH_AFTER_COMMIT: '1' });
    workers = [crasher];
    const text = 'one two three\nfour five\n\fsix';
    const { runId, messageId } = await startRun(world.engine, { meshId, input: { text } });
    expect(await crasher.exited).toBe('SIGKILL');

    // The head is done and its children are rows, but none of them has a job.
    const children = await rows<{ id: string; status: string }>(
      world.engine.db,
      sql`select id, status from messages where parent_id = ${messageId}`,
    );
    expect(children.length).toBe(2);
    expect(children.every((c) => c.status === 'pending')).toBe(true);
    for (const c of children) expect(await world.engine.queue('default').getJob(c.id)).toBeUndefined();

    workers.push(await spawnWorker(world, SHORT_LOCKS));
    orchestrator = startOrchestrator(world.engine);
    const view = await waitForRun(world.engine.db, runId, { timeoutMs: 30_000 });
    await expectExactDone(world.engine.db, view.id);
    expect(view.output).toEqual({ text });
    const ex = await exactness(world.engine.db, runId);
    expect(ex).toMatchObject({ notDone: 0, duplicateJoins: 0, unfiredJoins: 0 });
    // Every message delivered once: the head once (its redelivery after the crash only acknowledged).
    const [multi] = await rows<{ n: number }>(world.engine.db, sql`select count(*)::int as n from messages where run_id = ${runId} and attempts <> 1`);
    expect(multi?.n).toBe(0);
  });
});
