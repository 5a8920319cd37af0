/**
 * Waking long-polling claims when a service gets a job: pub/sub on `<prefix>:svc:<name>` (Redis, or
 * the in-process bus in the single-process mode).
 * Pub/sub, not BLPOP: one new job should wake every waiting claim of the service (only one wins the
 * row, the others go back to waiting), and a token list would pile up tokens while nobody waits.
 * A publish nobody hears is harmless because the database is the truth: a claim always queries the
 * jobs table after subscribing, and re-checks it every {@link RECHECK_MS} for what sends no message
 * (a lapsed lease, a job set back after a retryable failure on another server).
 */
import { Redis } from 'ioredis';
import type { Engine } from '../../kernel/engine';
import { publishSignal } from '../../kernel/signals';

/** Longest a waiting claim goes without querying the jobs table, in ms. */
export const RECHECK_MS = 2_000;

function channel(engine: Engine, service: string): string {
  return `${engine.config.prefix}:svc:${service}`;
}

/** Tells waiting claims of these services that jobs arrived. Never throws (the claims re-check anyway). */
export async function announceJobs(engine: Engine, serviceNames: Iterable<string>): Promise<void> {
  for (const name of new Set(serviceNames)) {
    await publishSignal(engine, channel(engine, name), '1').catch(() => undefined);
  }
}

/** A subscription a claim waits on. */
export interface WakeSubscription {
  /** Resolves after a job announcement, `ms`, or `signal` aborting, whichever comes first. */
  wait(ms: number, signal?: AbortSignal): Promise<void>;
  close(): void;
}

/**
 * Subscribes to a service's announcements on a connection of its own (a subscribed connection
 * can do nothing else). Resolves once subscribed; if Redis is away, waiting falls back to a timer.
 */
export async function subscribeJobs(engine: Engine, service: string): Promise<WakeSubscription> {
  const pings = pingWaiter();
  const local = engine.localBus;
  if (local) {
    const stop = local.subscribe(channel(engine, service), pings.hear);
    return { wait: pings.wait, close: stop };
  }
  const sub = new Redis(engine.redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1, retryStrategy: () => null });
  sub.on('error', () => undefined);
  sub.on('message', pings.hear);
  try {
    await sub.connect();
    await sub.subscribe(channel(engine, service));
  } catch {
    // Redis away: the claim still works, by re-checking the table on the timer.
  }
  return {
    wait: pings.wait,
    close() {
      sub.disconnect();
    },
  };
}

/** Remembers an announcement heard while nobody waited, and ends the current wait on one. */
function pingWaiter(): { hear: () => void; wait: WakeSubscription['wait'] } {
  let pinged = false;
  let wake: (() => void) | undefined;
  return {
    hear() {
      pinged = true;
      wake?.();
    },
    wait(ms, signal) {
      if (pinged) {
        pinged = false;
        return Promise.resolve();
      }
      return new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', done);
          wake = undefined;
          pinged = false;
          resolve();
        };
        const timer = setTimeout(done, ms);
        signal?.addEventListener('abort', done, { once: true });
        wake = done;
      });
    },
  };
}
