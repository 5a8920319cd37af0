/**
 * Draining on SIGTERM across real worker and orchestrator processes on Postgres and BullMQ: a
 * worker told to stop claims nothing more, finishes what it can within TRELLIS_DRAIN_MS and hands
 * back the rest (its steps stopped, their messages released uncounted, their jobs back to wait), so
 * another worker takes them over at once, with no lock left to lapse. A rolling release (every
 * worker, then the orchestrator, replaced one by one during a 20-document run) loses nothing.
 */
import { QueueEvents } from 'bullmq';
import { sql } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import {
  allowInternal,
  exactness,
  leaseHolder,
  licensesText,
  REDIS_URL,
  saveOrThrow,
  spawnOrchestrator,
  spawnWorker,
  stopWorkers,
  useWorlds,
  WORD_SPLIT,
  type TestWorld,
  type WorkerProcess,
} from '../../test/harness';
import { oneCallMesh, startRecorder, until } from '../../test/recorder';
import { queueName } from '../kernel/queues';
import { rows, textArray } from '../kernel/sql';
import { startRun } from '../runs/start-run';
import { waitForRun } from '../runs/wait-run';
import { startOrchestrator } from './orchestrator';

/**
 * Short locks, so a lock left behind by a worker that did not hand its job back stalls within
 * seconds, checked every second. The rolling release's are longer: its busy workers on a loaded
 * two-core machine could otherwise miss a renewal (BullMQ renews at half the lock) and stall a
 * healthy job.
 */
const LOCKS = { TRELLIS_LOCK_DURATION_MS: '4000', TRELLIS_STALLED_INTERVAL_MS: '1000' };
const BUSY_LOCKS = { TRELLIS_LOCK_DURATION_MS: '10000', TRELLIS_STALLED_INTERVAL_MS: '1000' };

/** Exits within the drain deadline plus its grace, with 0 (drained) rather than 1 (the hard exit). */
async function drained(p: WorkerProcess): Promise<number> {
  const t0 = Date.now();
  p.signal('SIGTERM');
  const code = await p.exited;
  expect(code, p.stderr().slice(-2000)).toBe(0);
  return Date.now() - t0;
}

describe('draining on SIGTERM', () => {
  const worlds = useWorlds();
  const procs: WorkerProcess[] = [];
  /** What each test opened besides its processes, closed after it, last first. */
  const opened: { close(): Promise<unknown> }[] = [];
  afterEach(async () => {
    await stopWorkers(procs.splice(0));
    for (const o of opened.splice(0).reverse()) await o.close();
  });

  /** Job ids BullMQ reports stalled on the default queue from now on. */
  async function watchStalls(world: TestWorld): Promise<Set<string>> {
    const events = new QueueEvents(queueName('default'), { connection: { url: REDIS_URL }, prefix: world.prefix });
    opened.push(events);
    const stalled = new Set<string>();
    events.on('stalled', ({ jobId }) => stalled.add(jobId));
    await events.waitUntilReady();
    return stalled;
  }

  it('past the deadline a long step is handed back: another worker finishes it at once, no attempt counted, nothing stalled', { timeout: 120_000 }, async () => {
    const world = await worlds.open({ tickMs: 200, relayAfterMs: 1_000 });
    const rec = await startRecorder();
    opened.push(rec);
    await allowInternal(world, rec.host);
    rec.on('/slow', { delayMs: 60_000 });
    const meshId = await saveOrThrow(world, oneCallMesh(rec, '/slow', 'long-step'));
    const stalled = await watchStalls(world);
    const env = { ...LOCKS, TRELLIS_DRAIN_MS: '1500' };
    procs.push(...(await Promise.all([0, 1].map(() => spawnWorker(world, env)))));
    opened.push(startOrchestrator(world.engine));
    const { runId, messageId } = await startRun(world.engine, { meshId, input: { text: 'x' } });
    await rec.waitFor(1, '/slow');
    rec.on('/slow', { delayMs: 1_500 }); // the next delivery is answered soon, while its job is read
    const pid = await leaseHolder(world, messageId);
    const stopping = procs.find((w) => w.pid === pid);
    if (!stopping) throw new Error(`no worker with pid ${pid}`);

    const exitMs = await drained(stopping);
    // The step was stopped (its request given up) and the other worker sent it again, same key.
    const seen = await rec.waitFor(2, '/slow', 15_000);
    expect(seen[0]?.abortedAt).toBeDefined();
    expect(seen.map((s) => s.key)).toEqual([messageId, messageId]);
    // Handed over at once: well before the 4 s lock could lapse and be noticed after the exit.
    expect((seen[1]?.at ?? 0) - (seen[0]?.abortedAt ?? 0)).toBeLessThan(3_000);
    expect(stopping.stderr()).toMatch(/step handed back/);
    // BullMQ started the job twice but counted no attempt; its lock never lapsed.
    const job = await world.engine.queue('default').getJob(messageId);
    expect({ attemptsMade: job?.attemptsMade, attemptsStarted: job?.attemptsStarted, stalledCounter: job?.stalledCounter }).toEqual({
      attemptsMade: 0,
      attemptsStarted: 2,
      stalledCounter: 0,
    });

    const view = await waitForRun(world.engine.db, runId, { timeoutMs: 20_000 });
    expect(view.status).toBe('done');
    const [row] = await rows<{ status: string; attempts: number; owner: string }>(
      world.engine.db,
      sql`select status, attempts, lease_owner as owner from messages where id = ${messageId}`,
    );
    expect(row).toMatchObject({ status: 'done', attempts: 1 });
    expect(Number(row?.owner.split('/')[1])).not.toBe(pid);
    expect([...stalled]).toEqual([]);
    console.info(`drain hand-back: worker exited ${exitMs} ms after SIGTERM (deadline 1500 ms); redelivered ${(seen[1]?.at ?? 0) - (seen[0]?.abortedAt ?? 0)} ms after the step stopped`);
  });

  it('a rolling release of both workers and the orchestrator during a 20-document run: every document exact, none lost', { timeout: 180_000 }, async () => {
    const world = await worlds.open();
    const meshId = await saveOrThrow(world, WORD_SPLIT);
    const stalled = await watchStalls(world);
    const env = { ...BUSY_LOCKS, TRELLIS_DRAIN_MS: '1000' };
    const started = Date.now();
    // Surge: the replacements start (and take work) before the processes they replace are told to
    // stop. They are started with the others: starting a process takes seconds on a loaded machine,
    // longer than the run itself.
    const [w1, w2, o1, w3, w4, o2] = await Promise.all([
      spawnWorker(world, env),
      spawnWorker(world, env),
      spawnOrchestrator(world, env),
      spawnWorker(world, env),
      spawnWorker(world, env),
      spawnOrchestrator(world, env),
    ]);
    procs.push(w1, w2, o1, w3, w4, o2);
    const spawnedS = (Date.now() - started) / 1000;
    // 20 documents: the pages of licenses.txt under 600 words, over and over.
    const corpus = licensesText();
    const bounds = [0, ...[...corpus.entries()].filter(([, b]) => b === 0x0c).map(([i]) => i + 1)];
    const small = bounds
      .slice(0, -1)
      .map((at, i) => corpus.subarray(at, bounds[i + 1]))
      .filter((p) => p.length > 100 && p.toString('utf8').split(/\s+/).length < 600);
    const docs = Array.from({ length: 20 }, (_, i) => small[i % small.length] as Buffer);
    const runIds: string[] = [];
    const runStart = Date.now();
    // Documents keep arriving through the release, as they do in production: 12 before the first
    // stop, then 4 after each of the first two old processes has drained. So the last old process
    // is told to stop with work surely in flight, however fast the machine.
    const startDocs = async (from: number, to: number) => {
      for (const doc of docs.slice(from, to)) runIds.push((await startRun(world.engine, { meshId, input: { bytes: doc } })).runId);
    };
    await startDocs(0, 12);
    const doneRuns = async () =>
      (await rows<{ n: number }>(world.engine.db, sql`select count(*)::int as n from runs where id = any(${textArray(runIds)}) and status = 'done'`))[0]?.n ?? 0;
    // Once the run is under way, each old process in turn is told to stop and drains.
    await until(async () => {
      const [r] = await rows<{ n: number }>(world.engine.db, sql`select count(*)::int as n from messages where run_id = any(${textArray(runIds)}) and status = 'done'`);
      return (r?.n ?? 0) >= 500 ? true : undefined;
    }, 'the run to be under way', 30_000, 20);
    const exits: number[] = [];
    exits.push(await drained(w1));
    await startDocs(12, 16);
    exits.push(await drained(w2));
    await startDocs(16, 20);
    // The restarts happen during the run, not after it: the last stop comes with documents open.
    const doneAtLastRestart = await doneRuns();
    expect(doneAtLastRestart).toBeLessThan(docs.length);
    exits.push(await drained(o1));

    for (const [i, runId] of runIds.entries()) {
      const view = await waitForRun(world.engine.db, runId, { timeoutMs: 60_000 });
      const text = (view.output as { text?: string } | null)?.text;
      expect({ status: view.status, exact: text !== undefined && Buffer.from(text, 'utf8').equals(docs[i] as Buffer) }).toEqual({ status: 'done', exact: true });
      expect({ lost: view.counts.lost, dead: view.counts.deadLettered }).toEqual({ lost: 0, dead: 0 });
      const ex = await exactness(world.engine.db, runId);
      expect(ex).toMatchObject({ notDone: 0, dead: 0, duplicateJoins: 0, unfiredJoins: 0 });
      expect(ex.delivered).toBe(ex.published);
    }
    // Every message delivered once: what a stopping worker handed back was not counted.
    const [multi] = await rows<{ n: number }>(
      world.engine.db,
      sql`select count(*)::int as n from messages where run_id = any(${textArray(runIds)}) and status <> 'filtered' and attempts <> 1`,
    );
    expect(multi?.n).toBe(0);
    expect([...stalled]).toEqual([]);
    expect(await world.engine.queue('default').getJobCounts('failed', 'active', 'wait', 'delayed')).toEqual({ failed: 0, active: 0, wait: 0, delayed: 0 });
    const handedBack = [w1, w2].map((w) => (w.stderr().match(/handing work back/g) ?? []).length);
    console.info(
      `rolling release: 6 processes started in ${spawnedS.toFixed(1)} s; ${docs.length} documents in ${((Date.now() - runStart) / 1000).toFixed(1)} s; ${doneAtLastRestart} done at the last stop; ` +
        `exits after SIGTERM ${exits.join(', ')} ms; deadline passes with work in hand per worker ${handedBack.join(', ')}`,
    );
  });
});
