/**
 * A worker for one pool: a BullMQ Worker whose processor hands each delivered message to the
 * batcher, then turns the outcome into BullMQ's language (return = ack, throw = retry,
 * UnrecoverableError = no more attempts).
 */
import { UnrecoverableError, Worker, type Job } from 'bullmq';
import { Redis } from 'ioredis';
import { MessageJobSchema, queueName } from '../bus/queues';
import { Batcher } from '../process/batcher';
import { processBatch } from '../process/batch';
import type { Delivery } from '../process/claim';
import { deadLetter, isRetryable, releaseForRetry } from '../process/dead-letter';
import type { Outcome } from '../process/types';
import type { Engine } from './context';

/** Options for {@link startWorker}. */
export interface WorkerOptions {
  /** The pool (queue) to serve; `default` when absent. */
  pool?: string;
  /** Jobs held at once (default 64); they are processed in batches of up to this many. */
  concurrency?: number;
}

/** A started worker. */
export interface RunningWorker {
  readonly pool: string;
  /** Finishes the jobs in hand, then disconnects. */
  close(): Promise<void>;
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
// - maxStalledCount 2: a job whose worker dies twice is likely killing workers (memory, a crash);
//   it is failed rather than passed around forever, and the reconciler dead-letters its message.
//   One is too few: one worker freeze (SIGSTOP, a VM pause) would already dead-letter innocent work.
// Tests set a 3 s lock and a 1 s interval to see a lapse within seconds.

/** Starts a worker on `engine` for one pool. */
export function startWorker(engine: Engine, options: WorkerOptions = {}): RunningWorker {
  const pool = options.pool ?? 'default';
  const concurrency = options.concurrency ?? 64;
  const connection = new Redis(engine.redisUrl, { maxRetriesPerRequest: null });
  const batcher = new Batcher<Delivery, Outcome>(
    (items) =>
      processBatch(engine, items).then((outcomes) => {
        coalesceWrites(connection);
        return outcomes;
      }),
    { maxBatch: Math.max(concurrency, 1), maxInFlight: engine.config.batchesInFlight },
  );
  connection.on('error', () => undefined); // the Worker reports connection trouble through its own 'error'
  const worker = new Worker(queueName(pool), (job: Job) => handle(engine, batcher, job), {
    connection,
    prefix: engine.config.prefix,
    concurrency,
    lockDuration: engine.config.lockDurationMs,
    stalledInterval: engine.config.stalledIntervalMs,
    maxStalledCount: engine.config.maxStalledCount,
  });
  worker.on('error', (err) => engine.log.error('worker error', { pool, error: err.message }));
  worker.on('failed', (job, err) => engine.log.info('delivery failed', { pool, job: job?.id, error: err.message }));
  return {
    pool,
    async close() {
      await worker.close();
      await connection.quit().catch(() => connection.disconnect());
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

async function handle(engine: Engine, batcher: Batcher<Delivery, Outcome>, job: Job): Promise<void> {
  const parsed = MessageJobSchema.safeParse(job.data);
  if (!parsed.success) throw new UnrecoverableError(`job ${job.id ?? '?'} has an unreadable payload`);
  const { messageId, runId } = parsed.data;
  const outcome = await batcher.submit(messageId, { messageId, runId, member: job.name });
  if (outcome.ok) return;
  const err = outcome.error;
  const lastAttempt = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
  if (lastAttempt || !isRetryable(err)) {
    await deadLetter(engine, messageId, err);
    throw new UnrecoverableError(err.message);
  }
  await releaseForRetry(engine, messageId, err);
  throw err;
}
