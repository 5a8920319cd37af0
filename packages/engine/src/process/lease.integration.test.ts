/**
 * One execution per live claim (issue: no doubled side effects). A heavy message's delivery holds a
 * lease; a second delivery of it waits, a stale owner's commit is refused by its fencing token, and
 * a thawed worker does no further outside effect once its lease was taken over. Worker processes
 * are real (`spawnWorker`); the outside effect is an HTTP step to a local recorder that counts
 * requests by their Idempotency-Key.
 */
import { QueueEvents } from 'bullmq';
import { sql } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import { allowInternal, leaseHolder, REDIS_URL, saveOrThrow, spawnWorker, stopWorkers, useWorlds, type TestWorld, type WorkerProcess, expectExactDone } from '../../test/harness';
import { startRecorder, until, type Recorder } from '../../test/recorder';
import { jobKey, queueName } from '../kernel/queues';
import { startRun } from '../runs/start-run';
import { waitForRun } from '../runs/wait-run';
import { startOrchestrator, type RunningOrchestrator } from '../runtime/orchestrator';
import { rows } from '../kernel/sql';
import { HeavyLane, processBatch } from './batch';
import { claimHeavy } from './claim';
import { LeaseKeeper, LeaseLostError } from './lease';
import { leaseLapses } from '../kernel/metrics';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A head workflow of HTTP steps, one per path, to the recorder. */
function httpMesh(rec: Recorder, paths: string[]) {
  return {
    format: 'trellis.mesh/v1',
    name: 'effects',
    members: [
      {
        id: 'call',
        kind: 'workflow',
        head: true,
        steps: paths.map((p, i) => ({ type: 'http', method: 'POST', url: `${rec.url}${p}`, allowHosts: [rec.host], timeoutMs: 60_000, into: `r${i}` })),
      },
    ],
    channels: [],
  };
}

/** Resolves once the message's lease has expired by the database's clock (its holder stopped renewing). */
async function leaseLapsed(world: TestWorld, messageId: string): Promise<void> {
  await until(async () => {
    const [m] = await rows<{ lapsed: boolean }>(world.engine.db, sql`select lease_until < now() as lapsed from messages where id = ${messageId}`);
    return m?.lapsed ? true : undefined;
  }, 'the lease to lapse', 30_000, 20);
}

describe('one execution per live claim', () => {
  const worlds = useWorlds();
  let workers: WorkerProcess[] = [];
  let orchestrator: RunningOrchestrator | undefined;
  let recorder: Recorder | undefined;
  let events: QueueEvents | undefined;
  afterEach(async () => {
    await stopWorkers(workers);
    workers = [];
    await orchestrator?.close();
    orchestrator = undefined;
    await events?.close();
    events = undefined;
    await recorder?.close();
    recorder = undefined;
  });

  it('a second delivery while the step runs waits for the lease instead of running it again', async () => {
    const world = await worlds.open();
    const rec = (recorder = await startRecorder());
    await allowInternal(world, rec.host);
    rec.on('/slow', { delayMs: 1500 });
    const meshId = await saveOrThrow(world, httpMesh(rec, ['/slow']));
    const { runId, messageId } = await startRun(world.engine, { meshId, input: { text: 'x' } });
    const delivery = { messageId, runId, member: 'call' };
    // Two workers, each with its own lane, get the same message 50 ms apart.
    const first = await processBatch(world.engine, [delivery], new HeavyLane(world.engine));
    await rec.waitFor(1);
    await sleep(50);
    const second = await processBatch(world.engine, [delivery], new HeavyLane(world.engine));
    const again = await second.get(messageId);
    expect(again?.kind).toBe('wait');
    if (again?.kind === 'wait') expect(again.until).toBeGreaterThan(Date.now());
    expect(await first.get(messageId)).toEqual({ kind: 'ack' });
    // After the first commit, the waiting delivery finds the message done and only acknowledges it.
    expect(await (await processBatch(world.engine, [delivery], new HeavyLane(world.engine))).get(messageId)).toEqual({ kind: 'ack' });
    expect(rec.seen.map((s) => s.key)).toEqual([messageId]);
    const [row] = await rows<{ status: string; attempts: number }>(world.engine.db, sql`select status, attempts from messages where id = ${messageId}`);
    expect(row).toEqual({ status: 'done', attempts: 1 });
  });

  it('a stale delivery cannot commit: the fencing token refuses it', async () => {
    const world = await worlds.open({ leaseMs: 300 });
    const rec = (recorder = await startRecorder());
    await allowInternal(world, rec.host);
    rec.on('/slow', { delayMs: 1200 });
    const meshId = await saveOrThrow(world, httpMesh(rec, ['/slow']));
    const { runId, messageId } = await startRun(world.engine, { meshId, input: { text: 'x' } });
    const delivery = { messageId, runId, member: 'call' };
    // The first lane's renewals are stopped from outside by taking its lease over once it lapsed.
    const stale = new HeavyLane(world.engine);
    const firstRun = await processBatch(world.engine, [delivery], stale);
    await rec.waitFor(1);
    stale.leases.close();
    await leaseLapsed(world, messageId);
    const second = await processBatch(world.engine, [delivery], new HeavyLane(world.engine));
    await rec.waitFor(2);
    const [taken] = await rows<{ token: string }>(world.engine.db, sql`select lease_token as token from messages where id = ${messageId}`);
    // The stale step ends first; its commit carries the old token and changes nothing.
    expect(await firstRun.get(messageId)).toEqual({ kind: 'ack' });
    const [mid] = await rows<{ status: string; token: string }>(world.engine.db, sql`select status, lease_token as token from messages where id = ${messageId}`);
    expect(mid).toEqual({ status: 'running', token: taken?.token });
    expect(await second.get(messageId)).toEqual({ kind: 'ack' });
    await waitForRun(world.engine.db, runId, { timeoutMs: 10_000 });
    await expectExactDone(world.engine.db, runId);
    const [end] = await rows<{ status: string; attempts: number }>(world.engine.db, sql`select status, attempts from messages where id = ${messageId}`);
    expect(end).toEqual({ status: 'done', attempts: 2 });
    // Both deliveries sent the same idempotency key, so the outside system can tell them apart from new work.
    expect(rec.seen.map((s) => s.key)).toEqual([messageId, messageId]);
  });

  it('guard() refuses to act once the lease was taken over, even before the next renewal is due', async () => {
    const world = await worlds.open();
    const rec = (recorder = await startRecorder());
    await allowInternal(world, rec.host);
    const meshId = await saveOrThrow(world, httpMesh(rec, ['/x']));
    const { runId, messageId } = await startRun(world.engine, { meshId, input: { text: 'x' } });
    // A keeper whose renewals are far apart: only guard() can notice the takeover in time.
    const keeper = new LeaseKeeper(world.engine.db, 300, 60_000);
    const { claimed } = await claimHeavy(world.engine.db, [messageId], keeper.owner, 300);
    const [mine] = claimed;
    if (!mine) throw new Error('the message was not claimed');
    const lease = keeper.hold(messageId, runId, mine.leaseToken, Date.now());
    await lease.guard();
    await leaseLapsed(world, messageId);
    const other = await claimHeavy(world.engine.db, [messageId], 'someone-else', 60_000);
    expect(other.claimed).toHaveLength(1);
    const lapses = async () => (await leaseLapses.get()).values[0]?.value ?? 0;
    const before = await lapses();
    await expect(lease.guard()).rejects.toBeInstanceOf(LeaseLostError);
    expect(lease.signal.aborted).toBe(true);
    // Counted once in trellis_lease_lapses_total; a second guard() on the aborted lease adds nothing.
    await expect(lease.guard()).rejects.toBeInstanceOf(LeaseLostError);
    expect((await lapses()) - before).toBe(1);
    keeper.close();
  });

  it('a worker paused past its lock but not its lease runs the step once', { timeout: 90_000 }, async () => {
    const world = await worlds.open({ tickMs: 200, relayAfterMs: 1_000 });
    const rec = (recorder = await startRecorder());
    await allowInternal(world, rec.host);
    rec.on('/slow', { delayMs: 5000 });
    const meshId = await saveOrThrow(world, httpMesh(rec, ['/slow']));
    events = new QueueEvents(queueName('default'), { connection: { url: REDIS_URL }, prefix: world.prefix });
    const stalled: string[] = [];
    events.on('stalled', ({ jobId }) => stalled.push(jobId));
    await events.waitUntilReady();
    const env = { TRELLIS_LOCK_DURATION_MS: '1500', TRELLIS_STALLED_INTERVAL_MS: '500', TRELLIS_LEASE_MS: '12000' };
    workers = await Promise.all([0, 1].map(() => spawnWorker(world, env)));
    orchestrator = startOrchestrator(world.engine);
    const { runId, messageId } = await startRun(world.engine, { meshId, input: { text: 'x' } });
    await rec.waitFor(1);
    const pid = await leaseHolder(world, messageId);
    const paused = workers.find((w) => w.pid === pid);
    if (!paused) throw new Error(`no worker with pid ${pid}`);
    paused.signal('SIGSTOP');
    // The lock lapses and BullMQ hands the job to the other worker, which finds the lease live.
    await until(() => (stalled.includes(messageId) ? true : undefined), 'the job to stall', 20_000);
    await sleep(1000);
    paused.signal('SIGCONT');
    const view = await waitForRun(world.engine.db, runId, { timeoutMs: 60_000 });
    await expectExactDone(world.engine.db, view.id);
    await sleep(500);
    expect(rec.seen.filter((s) => s.path === '/slow')).toHaveLength(1);
    const [row] = await rows<{ attempts: number }>(world.engine.db, sql`select attempts from messages where id = ${messageId}`);
    expect(row?.attempts).toBe(1);
  });

  it('a worker frozen past its lease does no further effect when it thaws; the new holder finishes', { timeout: 90_000 }, async () => {
    const world = await worlds.open({ tickMs: 200, relayAfterMs: 1_000 });
    const rec = (recorder = await startRecorder());
    await allowInternal(world, rec.host);
    rec.on('/first', { delayMs: 2500 });
    const meshId = await saveOrThrow(world, httpMesh(rec, ['/first', '/second']));
    const env = { TRELLIS_LOCK_DURATION_MS: '1500', TRELLIS_STALLED_INTERVAL_MS: '500', TRELLIS_LEASE_MS: '3000' };
    workers = await Promise.all([0, 1].map(() => spawnWorker(world, env)));
    orchestrator = startOrchestrator(world.engine);
    const { runId, messageId } = await startRun(world.engine, { meshId, input: { text: 'x' } });
    await rec.waitFor(1, '/first');
    const pid = await leaseHolder(world, messageId);
    const frozen = workers.find((w) => w.pid === pid);
    if (!frozen) throw new Error(`no worker with pid ${pid}`);
    frozen.signal('SIGSTOP');
    // The other worker takes the message over once the lease lapses and finishes both steps.
    await rec.waitFor(1, '/second', 30_000);
    await until(async () => {
      const [m] = await rows<{ status: string }>(world.engine.db, sql`select status from messages where id = ${messageId}`);
      return m?.status === 'done' ? true : undefined;
    }, 'the message to be done');
    frozen.signal('SIGCONT');
    await waitForRun(world.engine.db, runId, { timeoutMs: 30_000 });
    await expectExactDone(world.engine.db, runId);
    // Once the thawed worker has seen it lost the lease (it says so), it has done all it would do.
    await until(() => (/step stopped|lease on message/.test(frozen.stderr()) ? true : undefined), 'the thawed worker to notice its lost lease');
    expect(rec.seen.filter((s) => s.path === '/second')).toHaveLength(1);
    // Every effect of the message carried its keys: the first step's twice (same key), the second once.
    const firsts = rec.seen.filter((s) => s.path === '/first');
    expect(firsts.length).toBe(2);
    expect(new Set(firsts.map((s) => s.key))).toEqual(new Set([messageId]));
    expect(rec.seen.find((s) => s.path === '/second')?.key).toBe(`${messageId}/1/0`);
    expect(frozen.stderr()).toMatch(/step stopped|lease on message/);
  });

  it('a message whose worker died twice is dead-lettered, saying so, and never handed out a third time', { timeout: 200_000 }, async () => {
    const world = await worlds.open({ tickMs: 200, relayAfterMs: 500 });
    const rec = (recorder = await startRecorder());
    await allowInternal(world, rec.host);
    rec.on('/hang', { delayMs: 600_000 });
    const meshId = await saveOrThrow(world, httpMesh(rec, ['/hang']));
    const env = { TRELLIS_LOCK_DURATION_MS: '1500', TRELLIS_STALLED_INTERVAL_MS: '500', TRELLIS_LEASE_MS: '2000' };
    workers = await Promise.all([0, 1, 2].map(() => spawnWorker(world, env)));
    orchestrator = startOrchestrator(world.engine);
    const { runId, messageId } = await startRun(world.engine, { meshId, input: { text: 'x' } });
    const killed: number[] = [];
    for (let death = 1; death <= 2; death++) {
      await rec.waitFor(death, '/hang', 60_000);
      // The holder of this delivery: never one killed before (its lease row may still name it).
      const pid = await leaseHolder(world, messageId, killed);
      const victim = workers.find((w) => w.pid === pid);
      if (!victim) throw new Error(`no worker with pid ${pid}`);
      victim.signal('SIGKILL');
      killed.push(pid);
      await victim.exited;
    }
    const view = await waitForRun(world.engine.db, runId, { timeoutMs: 90_000 });
    if (view.status !== 'failed') {
      // Say what the queue and the row held, so a failure here names its cause.
      const job = await world.engine.redis.hgetall(jobKey(world.engine.config.prefix, 'default', messageId));
      const [msg] = await rows(world.engine.db, sql`select status, attempts, requeues, lease_owner, lease_until::text, error from messages where id = ${messageId}`);
      const alive = workers.filter((w) => !killed.includes(w.pid));
      throw new Error(
        `run still ${view.status}: job stc=${job.stc} defa=${job.defa} finishedOn=${job.finishedOn} failedReason=${job.failedReason}; ` +
          `row ${JSON.stringify(msg)}; requests ${rec.seen.filter((s) => s.path === '/hang').length}; killed ${killed.join(',')}; ` +
          `last worker said: ${alive.map((w) => w.stderr().slice(-1500)).join(' | ')}`,
      );
    }
    expect(view.cause).toBe('step_code_failed');
    expect(view.causeMessage).toContain('the worker handling it died 2 times');
    await sleep(2000);
    // Two deliveries, two requests: the last worker standing never got it.
    expect(rec.seen.filter((s) => s.path === '/hang')).toHaveLength(2);
    const [row] = await rows<{ status: string; attempts: number }>(world.engine.db, sql`select status, attempts from messages where id = ${messageId}`);
    expect(row).toEqual({ status: 'dead', attempts: 2 });
  });
});
