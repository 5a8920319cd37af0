/**
 * Worker heartbeats: which workers serve a pool right now, and how many messages they hold at once
 * (their slots). Admission (runs/admission.ts) reads them to say whether a run can start.
 *
 * On BullMQ each worker beats every {@link BEAT_EVERY_MS} into one Redis sorted set per pool,
 * `<prefix>:workers:<pool>`, member `<worker id>|<concurrency>`, score the beat's expiry (epoch
 * ms, {@link BEAT_TTL_MS} ahead); a reader drops expired members first, so a killed worker stops
 * counting within the TTL and a closed one at once. On the in-process bus the workers are in this
 * process: they are listed in memory while they run.
 */
import { randomUUID } from 'node:crypto';
import type { Engine } from './engine';
import type { LocalBus } from './local-bus';
import { processSingleton } from './process-singleton';

/** How often a worker beats (ms). */
export const BEAT_EVERY_MS = 5_000;
/** How long a beat counts (ms): three beats, so one slow beat does not hide a live worker. */
export const BEAT_TTL_MS = 15_000;

/** The live workers of one pool. */
export interface PoolWorkersNow {
  /** Workers that beat within {@link BEAT_TTL_MS}. */
  workers: number;
  /** Their concurrency added up: messages the pool holds at once. */
  slots: number;
}

/** A worker's heartbeat; `stop` removes it at once. */
export interface Heartbeat {
  stop(): Promise<void>;
}

/**
 * The in-process bus's workers, by bus, pool and worker id (their concurrency). One map per process
 * (kernel/process-singleton.ts): the web server's worker starts from one bundle and its routes
 * admit runs from another.
 */
const localWorkers = processSingleton('heartbeats.local-workers.v1', () => new WeakMap<LocalBus, Map<string, Map<string, number>>>());

function workersKey(engine: Pick<Engine, 'config'>, pool: string): string {
  return `${engine.config.prefix}:workers:${pool}`;
}

/**
 * Starts beating for one worker of `pool` holding `concurrency` messages at once. A failed beat
 * (Redis away) is logged once and tried again at the next beat.
 */
export function startHeartbeat(engine: Engine, pool: string, concurrency: number): Heartbeat {
  const id = randomUUID();
  const local = engine.localBus;
  if (local) {
    let pools = localWorkers.get(local);
    if (!pools) localWorkers.set(local, (pools = new Map<string, Map<string, number>>()));
    let ids = pools.get(pool);
    if (!ids) pools.set(pool, (ids = new Map<string, number>()));
    ids.set(id, concurrency);
    return {
      stop: () => {
        ids.delete(id);
        return Promise.resolve();
      },
    };
  }
  const key = workersKey(engine, pool);
  const member = `${id}|${concurrency}`;
  let warned = false;
  const beat = () =>
    engine.redis.zadd(key, Date.now() + BEAT_TTL_MS, member).then(
      () => {
        warned = false;
      },
      (err: unknown) => {
        if (!warned) engine.log.warn('worker heartbeat failed', { pool, error: err instanceof Error ? err.message : String(err) });
        warned = true;
      },
    );
  void beat();
  const timer = setInterval(() => void beat(), BEAT_EVERY_MS);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await engine.redis.zrem(key, member).catch(() => undefined);
    },
  };
}

/**
 * The workers of `pool` whose beat has not expired, and their slots.
 * @throws the Redis error when Redis does not answer (BullMQ bus).
 */
export async function liveWorkers(engine: Engine, pool: string): Promise<PoolWorkersNow> {
  const local = engine.localBus;
  if (local) {
    const ids = localWorkers.get(local)?.get(pool);
    return { workers: ids?.size ?? 0, slots: [...(ids?.values() ?? [])].reduce((a, b) => a + b, 0) };
  }
  const key = workersKey(engine, pool);
  const [, members] = await engine.redis.multi().zremrangebyscore(key, '-inf', Date.now()).zrange(key, 0, -1).exec().then((r) => (r ?? []).map(([err, v]) => {
    if (err) throw err;
    return v;
  }));
  const list = Array.isArray(members) ? (members as string[]) : [];
  return { workers: list.length, slots: list.reduce((sum, m) => sum + (Number(m.slice(m.lastIndexOf('|') + 1)) || 0), 0) };
}
