/**
 * A worker for one pool: a BullMQ Worker whose processor hands each delivered message to the
 * batcher, then turns the outcome into BullMQ's language (return = ack, throw = retry,
 * UnrecoverableError = no more attempts). On the in-process bus the same batcher is fed from the
 * message rows instead (runtime/local-worker.ts).
 */
import { DelayedError, MetricsTime, UnrecoverableError, WaitingError, Worker, type Job } from 'bullmq';
import { Redis } from 'ioredis';
import { MessageJobSchema, busOf, queueName } from '../kernel/queues';
import { Batcher } from '../process/batcher';
import { HeavyLane, processBatch } from '../process/batch';
import { InlineLane } from '../process/inline-lane';
import { joinLanes } from '../process/inline-lanes';
import { subscribeEvents } from '../events/subscribe';
import type { Delivery } from '../process/claim';
import { settleFailedDelivery } from '../process/dead-letter';
import { DRAINED, type Outcome } from '../process/types';
import type { Engine } from '../kernel/engine';
import { startLocalWorker } from './local-worker';
import { startHeartbeat } from '../kernel/heartbeats';
import { reservedSlots } from '../kernel/priority';

/** Options for {@link startWorker}. */
export interface WorkerOptions {
  /** The pool (queue) to serve; `default` when absent. */
  pool?: string;
  /**
   * Jobs held at once (default 64); they are processed in batches of up to this many. While urgent
   * jobs are in hand, normal jobs get only the reserved share of these slots (engine config
   * `reservedShare`, kernel/priority.ts) and urgent jobs the rest.
   */
  concurrency?: number;
}

/** How long the normal lane stays held to its reserved share after the last urgent job finished, ms. */
export const URGENT_HOLD_MS = 250;

/** A started worker. */
export interface RunningWorker {
  readonly pool: string;
  /**
   * Drains, then disconnects: claims nothing more, and finishes the jobs and inline messages in
   * hand. When `deadline` aborts first (the drain deadline, runtime/boot.ts), hands back what is
   * still in hand: running steps are stopped (process/lease.ts `DrainedError`) and their messages
   * released uncounted, jobs go back to wait without counting an attempt (BullMQ's "manual
   * retrying": `job.moveToWait(token)` then `WaitingError`), and inline messages not yet started
   * become jobs at once. A step that finishes despite the abort still commits.
   */
  close(deadline?: AbortSignal): Promise<void>;
}

// Lock tuning, deliberately (engine config; TRELLIS_LOCK_DURATION_MS, TRELLIS_STALLED_INTERVAL_MS,
// TRELLIS_MAX_STALLED_COUNT):
// - lockDuration 30 s: how long a job stays claimed without renewal; BullMQ renews at half of it,
//   so a busy but healthy worker (a batch commit of a few hundred ms, a Postgres blink retried for
//   up to ~2 s) never loses a lock, and a dead or frozen one frees its jobs within ~30 s. Shorter
//   locks hand work back faster but risk a healthy worker under GC or CPU pressure losing a lock and
//   doing the work twice (harmless: the message row makes it idempotent, but wasted).
// - stalledInterval 15 s: check for lapsed locks twice per lock period, so a dead worker's job is
//   handed to another (same id) within about lockDuration + stalledInterval = 45 s at worst.
// - maxStalledCount 1: BullMQ hands a job whose lock lapsed back once (its stalled counter reaching
//   1) and fails it at the second lapse (counter 2 > 1), so a message is delivered at most twice to
//   a worker that dies on it; a job whose worker dies twice is likely killing workers (memory, a
//   crash), and the relay dead-letters its message saying how many times. Zero would be too few:
//   one worker freeze (SIGSTOP, a VM pause) would already dead-letter innocent work.
// - Heavy messages also hold a lease on their row (process/lease.ts, leaseMs 60 s by default,
//   twice the lock): a redelivery after a lock lapse finds the lease live and waits (a delayed job)
//   while the first worker is merely slow, so the step runs once.
// Tests set a 3 s lock and a 1 s interval to see a lapse within seconds.

/** Starts a worker on `engine` for one pool. */
export function startWorker(engine: Engine, options: WorkerOptions = {}): RunningWorker {
  const pool = options.pool ?? 'default';
  const concurrency = options.concurrency ?? 64;
  const local = busOf(engine).kind === 'local' ? engine.localBus : undefined;
  // On the in-process bus (runtime/local-worker.ts) this connection is never opened.
  const connection = new Redis(engine.redisUrl, local ? { maxRetriesPerRequest: null, lazyConnect: true } : { maxRetriesPerRequest: null });
  // Light children of this worker's commits stay here (process/inline-lane.ts) instead of becoming
  // jobs (on BullMQ) or rows to claim (on the in-process bus, whose claim skips their live leases).
  const inline = new InlineLane(engine, pool);
  // Light children for another pool this process serves go to that pool's lane (process/inline-lanes.ts).
  const lanes = joinLanes(engine, pool, inline);
  const lane = new HeavyLane(engine, lanes);
  lane.afterCommit = () => coalesceWrites(connection);
  inline.start((items) => processBatch(engine, items, lane));
  const makeBatcher = (maxBatch: number) =>
    new Batcher<Delivery, Outcome>(
      (items) =>
        processBatch(engine, items, lane).then((outcomes) => {
          coalesceWrites(connection);
          return outcomes;
        }),
      { maxBatch: Math.max(maxBatch, 1), maxInFlight: engine.config.batchesInFlight },
    );
  const batcher = makeBatcher(concurrency);
  // Slots: urgent jobs may hold all but `reserved`; while any is in hand, normal jobs hold at most
  // `reserved` (their worker's concurrency is lowered, so it stops fetching; jobs in hand finish).
  const reserved = reservedSlots(Math.max(concurrency, 1), engine.config.reservedShare);
  const urgentSlots = Math.max(concurrency - reserved, 1);
  const served = local ? startLocalWorker(engine, local, pool, concurrency, lane, batcher, { urgentSlots }) : undefined;
  connection.on('error', () => undefined); // the Worker reports connection trouble through its own 'error'
  const workerOptions = {
    connection,
    prefix: engine.config.prefix,
    lockDuration: engine.config.lockDurationMs,
    stalledInterval: engine.config.stalledIntervalMs,
    maxStalledCount: engine.config.maxStalledCount,
    // Completed jobs per minute for the last hour (BullMQ metrics): admission's wait estimates.
    metrics: { maxDataPoints: MetricsTime.ONE_HOUR },
  };
  const worker = served ? undefined : new Worker(queueName(pool), (job: Job, token?: string) => handle(engine, lane, batcher, job, token), { ...workerOptions, concurrency });
  // The urgent lane has its own batcher: an urgent job never waits behind normal batches in flight.
  const urgentBatcher = makeBatcher(urgentSlots);
  let urgentInHand = 0;
  let release: NodeJS.Timeout | undefined;
  const throttle = (on: boolean) => {
    if (!worker) return;
    if (release) clearTimeout(release);
    release = undefined;
    if (on) worker.concurrency = Math.min(reserved, concurrency);
    else release = setTimeout(() => (worker.concurrency = concurrency), URGENT_HOLD_MS);
  };
  const urgentWorker = served
    ? undefined
    : new Worker(
        queueName(pool, 'urgent'),
        async (job: Job, token?: string) => {
          if (urgentInHand++ === 0) throttle(true);
          try {
            await handle(engine, lane, urgentBatcher, job, token);
          } finally {
            if (--urgentInHand === 0) throttle(false);
          }
        },
        { ...workerOptions, concurrency: urgentSlots },
      );
  for (const [w, which] of [
    [worker, 'normal'],
    [urgentWorker, 'urgent'],
  ] as const) {
    w?.on('error', (err) => engine.log.error('worker error', { pool, lane: which, error: err.message }));
    w?.on('failed', (job, err) => engine.log.info('delivery failed', { pool, lane: which, job: job?.id, error: err.message }));
  }
  // Admission (runs/admission.ts) counts this worker and its slots while it beats.
  const heartbeat = startHeartbeat(engine, pool, concurrency);
  // A run that ends (failed, or cancelled by a person) stops its steps running here. The events come
  // from the orchestrator's pump; a lease renewal that reads the run's end is the fallback.
  const unsubscribe = subscribeEvents(engine, (events) => {
    for (const e of events) {
      const ended = (e.kind === 'run.failed' && e.status === 'failed') || (e.kind === 'run.status' && (e.status === 'failed' || e.status === 'cancelled'));
      if (ended && e.runId) lane.leases.abortRun(e.runId, e.status ?? 'ended');
    }
  }).catch((err: unknown) => {
    engine.log.warn('worker cannot hear run ends; relying on lease renewals', { pool, error: err instanceof Error ? err.message : String(err) });
    return undefined;
  });
  return {
    pool,
    async close(deadline) {
      lanes.close(); // other pools' commits stop handing children to this worker
      const handBack = () => {
        const waiting = batcher.refuse(DRAINED) + urgentBatcher.refuse(DRAINED);
        const stopped = lane.leases.drain();
        engine.log.warn('drain deadline passed: handing work back', { pool, waiting, stopped, inline: inline.size });
      };
      if (deadline?.aborted) handBack();
      else deadline?.addEventListener('abort', handBack, { once: true });
      await heartbeat.stop();
      // Claim nothing more (pause stops fetching without waiting), then wait for the jobs in hand.
      await Promise.all([worker?.pause(true), urgentWorker?.pause(true)]);
      await Promise.all([
        (worker ?? served)?.close(),
        urgentWorker?.close(),
        inline.close(deadline), // finishes the inline messages in hand; their children go to BullMQ
      ]);
      deadline?.removeEventListener('abort', handBack);
      if (release) clearTimeout(release);
      await (await unsubscribe)?.();
      lane.leases.close();
      if (served) connection.disconnect();
      else await connection.quit().catch(() => connection.disconnect());
    },
  };
}

/**
 * Holds the worker connection's writes until the end of this turn of the event loop. A batch's
 * outcomes resolve every job of the batch at once, and BullMQ then sends one `moveToFinished`
 * per job: corked, they leave in one `writev` (and reach Redis as one pipelined read) instead of a
 * write system call each. Measured on a 20,000-way fan-out: socket writes were the largest single
 * item of the worker's CPU profile. Nothing is reordered or held past `setImmediate`.
 */
function coalesceWrites(connection: Redis): void {
  const socket = connection.stream as { cork?: () => void; uncork?: () => void; writableCorked?: number } | undefined;
  if (!socket?.cork || !socket.uncork || (socket.writableCorked ?? 0) > 0) return;
  socket.cork();
  setImmediate(() => socket.uncork?.());
}

async function handle(engine: Engine, lane: HeavyLane, batcher: Batcher<Delivery, Outcome>, job: Job, token: string | undefined): Promise<void> {
  const parsed = MessageJobSchema.safeParse(job.data);
  if (!parsed.success) throw new UnrecoverableError(`job ${job.id ?? '?'} has an unreadable payload`);
  const { messageId, runId } = parsed.data;
  const outcome = await batcher.submit(messageId, { messageId, runId, member: job.name });
  if (outcome.kind === 'ack') return;
  if (outcome.kind === 'drained') {
    // This worker is stopping: back to wait for another worker now, no attempt counted.
    await job.moveToWait(token);
    throw new WaitingError();
  }
  if (outcome.kind === 'wait') {
    // Another delivery holds a live lease: look again when it ends (not an attempt, not a failure).
    await job.moveToDelayed(Math.max(outcome.until, Date.now()) + 100, token);
    throw new DelayedError();
  }
  const err = outcome.error;
  const lastAttempt = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
  const verdict = await settleFailedDelivery(engine, { messageId, runId, error: err, leaseToken: outcome.leaseToken, lastAttempt }, (id) =>
    lane.leases.abortRun(id, 'failed'),
  );
  if (verdict === 'dead') throw new UnrecoverableError(err.message);
  throw err;
}
