/**
 * The message bus contract in one place: queue names, the versioned job payload, job options and
 * the typed `enqueue()`. Producers (publish, start-run, the relay) and workers share it.
 * A job carries ids only; the message row in Postgres is the truth and the idempotency authority.
 */
import type { JobsOptions, Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import { URGENT_SUFFIX, urgentAmong, type Lane } from './priority';

/** Version 1 of the job payload; workers parse it again on pickup. */
export const MessageJobSchema = z.object({
  v: z.literal(1),
  runId: z.string().min(1),
  messageId: z.string().regex(/^[0-9a-f]{64}$/, 'a message id is 64 hex digits'),
});

/** What a job carries. */
export type MessageJob = z.infer<typeof MessageJobSchema>;

/** A message to put on the bus. */
export interface Outgoing {
  pool: string;
  runId: string;
  messageId: string;
  /** Used as the job name, so dashboards show which member a job is for. */
  member: string;
}

/**
 * The BullMQ queue name of a worker pool's lane (no ':' allowed in BullMQ names): `pool-<pool>`,
 * or `pool-<pool>.urgent` for the urgent lane (kernel/priority.ts).
 */
export function queueName(pool: string, lane: Lane = 'normal'): string {
  return lane === 'urgent' ? `pool-${pool}${URGENT_SUFFIX}` : `pool-${pool}`;
}

/** The Redis key of a job's hash in one lane, for existence checks in a pipeline. */
export function jobKey(prefix: string, pool: string, jobId: string, lane: Lane = 'normal'): string {
  return `${prefix}:${queueName(pool, lane)}:${jobId}`;
}

/**
 * What queueing needs of the engine (kernel/engine.ts `Engine` has it): the retry settings and the
 * queue of a pool. Declared here so that this module does not import the engine it serves.
 */
export interface QueueHost {
  readonly config: { readonly attempts: number; readonly backoffMs: number; readonly prefix: string };
  /** A pool's queue in one lane (normal when absent). */
  queue(pool: string, lane?: Lane): Pick<Queue, 'addBulk'>;
  /** Where the urgent runs' mirror lives (kernel/priority.ts `urgentRunsKey`). */
  readonly redis: Pick<Redis, 'smismember'>;
  /** Set in the single-process mode: messages go there instead of to BullMQ (kernel/local-bus.ts). */
  readonly localBus?: Bus | undefined;
}

/**
 * The bus contract both implementations keep: BullMQ on Redis ({@link bullmqBus}) and the in-process
 * bus on the message rows (kernel/local-bus.ts `LocalBus`). Same job payload, pools, retries,
 * leases and dead-letter rules; runtime/worker.ts starts a pool's worker on whichever it is.
 */
export interface Bus {
  /** `redis`: BullMQ jobs in Redis, shared by every process; `local`: the rows, this process only. */
  readonly kind: 'redis' | 'local';
  /** Puts messages on the bus; a message already queued is a no-op. */
  enqueue(items: readonly Outgoing[]): Promise<void>;
}

/** The BullMQ implementation of {@link Bus} on `host`'s queues. */
export function bullmqBus(host: Pick<QueueHost, 'config' | 'queue' | 'redis'>): Bus {
  return { kind: 'redis', enqueue: (items) => addJobs(host, items) };
}

/** The bus `engine` runs on: the in-process bus when it has one, else BullMQ. */
export function busOf(engine: QueueHost): Bus {
  return engine.localBus ?? bullmqBus(engine);
}

/**
 * Job options. Completed jobs are removed at once: the message row, not Redis, remembers what is done.
 * Failed jobs are kept a while for inspection; their message rows are already marked dead.
 */
export function jobOptions(engine: Pick<QueueHost, 'config'>, messageId: string): JobsOptions {
  return {
    jobId: messageId,
    attempts: engine.config.attempts,
    backoff: { type: 'exponential', delay: engine.config.backoffMs },
    removeOnComplete: true,
    removeOnFail: { age: 7 * 24 * 3600, count: 10_000 },
  };
}

/** Largest addBulk: keeps each Redis call (one MULTI) short so other clients are not starved. */
export const ENQUEUE_CHUNK = 500;

/** Puts messages on `engine`'s bus ({@link busOf}); a message already queued is a no-op. */
export function enqueue(engine: QueueHost, items: readonly Outgoing[]): Promise<void> {
  return busOf(engine).enqueue(items);
}

/**
 * Adds one job per message, grouped by pool and lane, in chunks of {@link ENQUEUE_CHUNK}. A message
 * of an urgent run (the Redis mirror, one SMISMEMBER for the call) goes on its pool's urgent lane.
 * A message whose job already exists in its lane is a no-op (same jobId).
 */
async function addJobs(engine: Pick<QueueHost, 'config' | 'queue' | 'redis'>, items: readonly Outgoing[]): Promise<void> {
  if (items.length === 0) return;
  const urgent = await urgentAmong(engine, items.map((m) => m.runId));
  const byLane = new Map<string, { pool: string; lane: Lane; list: Outgoing[] }>();
  for (const it of items) {
    const lane: Lane = urgent.has(it.runId) ? 'urgent' : 'normal';
    const key = `${lane}:${it.pool}`;
    const group = byLane.get(key);
    if (group) group.list.push(it);
    else byLane.set(key, { pool: it.pool, lane, list: [it] });
  }
  // Urgent lanes first: their workers may be idle while the normal lanes have a backlog.
  const groups = [...byLane.values()].sort((a, b) => (a.lane === b.lane ? 0 : a.lane === 'urgent' ? -1 : 1));
  for (const { pool, lane, list } of groups) {
    const queue = engine.queue(pool, lane);
    for (let i = 0; i < list.length; i += ENQUEUE_CHUNK) {
      const chunk = list.slice(i, i + ENQUEUE_CHUNK);
      await queue.addBulk(
        chunk.map((m) => ({
          name: m.member,
          data: { v: 1, runId: m.runId, messageId: m.messageId } satisfies MessageJob,
          opts: jobOptions(engine, m.messageId),
        })),
      );
    }
  }
}
