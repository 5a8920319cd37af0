/**
 * Leader election for the orchestrator's singleton duties (runtime/orchestrator.ts): any number of
 * orchestrators run, one leads. The leader holds the lease row `orchestrator_lease(name)` until its
 * `expires_at`, renewing it every third of the lease; a standby tries to take it over at the same
 * pace, and succeeds once it has expired, incrementing the fencing token. A leader steps down when a
 * renewal is refused (another took over) or when no renewal succeeded within the lease (measured
 * from when the last successful renewal was sent, on this process's monotonic clock, so a leader cut
 * off from the database stops before anyone else may start). On close the lease is released and
 * standbys are woken over Redis, so one takes over at once instead of after the lease runs out.
 * Writes of the duties carry the fence (kernel/fence.ts), which the database checks.
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { performance } from 'node:perf_hooks';
import { z } from 'zod';
import { sql } from 'drizzle-orm';
import type { Redis } from 'ioredis';
import type { Engine } from '../kernel/engine';
import type { Fence } from '../kernel/fence';
import { rows, type Queryable } from '../kernel/sql';

/** The lease the orchestrator's duties run under. */
export const ORCHESTRATOR_LEASE = 'orchestrator';

const TokenRow = z.object({ token: z.string() });

/** A holder id for this process: `<host>:<pid>:<8 hex>`, unique per start. */
export function holderId(): string {
  return `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
}

/**
 * Takes lease `name` for `holder` for `leaseMs` if it is free (no row yet, or expired on the
 * database clock), incrementing its fencing token. One statement, so two callers at once cannot
 * both win.
 * @returns the fence, or undefined when another holds a live lease.
 */
export async function acquireLease(db: Queryable, name: string, holder: string, leaseMs: number): Promise<Fence | undefined> {
  const [row] = await rows(
    db,
    sql`insert into orchestrator_lease as l (name, holder, token, expires_at, acquired_at)
        values (${name}, ${holder}, 1, now() + make_interval(secs => ${leaseMs / 1000}), now())
        on conflict (name) do update set holder = excluded.holder, token = l.token + 1,
               expires_at = excluded.expires_at, acquired_at = excluded.acquired_at
         where l.expires_at <= now()
     returning token::text as token`,
    TokenRow,
  );
  return row ? { name, holder, token: row.token } : undefined;
}

/**
 * Extends the lease `fence` holds by `leaseMs` from now, if it still holds it (same holder and
 * token, not expired).
 * @returns false when the lease was lost.
 */
export async function renewLease(db: Queryable, fence: Fence, leaseMs: number): Promise<boolean> {
  const renewed = await rows(
    db,
    sql`update orchestrator_lease set expires_at = now() + make_interval(secs => ${leaseMs / 1000})
         where name = ${fence.name} and holder = ${fence.holder} and token = ${fence.token}::bigint and expires_at > now()
     returning token::text as token`,
    TokenRow,
  );
  return renewed.length > 0;
}

/** Ends the lease `fence` holds now (if it still holds it), so the next standby's attempt takes it. */
export async function releaseLease(db: Queryable, fence: Fence): Promise<void> {
  await db.execute(
    sql`update orchestrator_lease set expires_at = now()
         where name = ${fence.name} and holder = ${fence.holder} and token = ${fence.token}::bigint`,
  );
}

/** This process's standing under a lease. */
export interface Leadership {
  /** True while this process leads (always, when no lease is used). */
  isLeader(): boolean;
  /** The fence the duties' writes carry while leading; undefined when standing by or unfenced. */
  fence(): Fence | undefined;
  /** Resolves once the first attempt to take the lease has ended (either way). */
  readonly ready: Promise<void>;
  /** Stops renewing, releases the lease if held and wakes the standbys. */
  close(): Promise<void>;
}

/** Leadership without a lease: the one process there can be (the embedded database), never fenced. */
export const SOLE_LEADER: Leadership = {
  isLeader: () => true,
  fence: () => undefined,
  ready: Promise.resolve(),
  close: () => Promise.resolve(),
};

/** The Redis channel a releasing leader publishes on, so standbys try at once. */
export function leaseChannel(prefix: string, name: string): string {
  return `${prefix}:lease:${name}`;
}

/** Options for {@link startLeadership}. */
export interface LeadershipOptions {
  /** The lease's name (default {@link ORCHESTRATOR_LEASE}). */
  name?: string;
  /** Lease length in ms (default the engine's `leaderLeaseMs`). */
  leaseMs?: number;
  /** Holder id (default {@link holderId}). */
  holder?: string;
}

/**
 * Starts contending for the lease on `engine`'s database: an attempt now, then one every third of
 * the lease (a renewal while leading, a takeover attempt while standing by), and one whenever the
 * holder says it released the lease. Changes are logged as warnings (`leadership acquired`, with
 * the token; `leadership lost`, with the reason).
 */
export function startLeadership(engine: Engine, options: LeadershipOptions = {}): Leadership {
  const name = options.name ?? ORCHESTRATOR_LEASE;
  const leaseMs = options.leaseMs ?? engine.config.leaderLeaseMs;
  const holder = options.holder ?? holderId();
  const everyMs = Math.max(Math.floor(leaseMs / 3), 1);
  let held: Fence | undefined;
  // Monotonic time until which the held lease is surely still ours: when the last successful
  // acquire or renewal was sent, plus the lease.
  let validUntil = 0;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let current: Promise<void> = Promise.resolve();
  let lastProblem = '';

  const lose = (reason: string) => {
    if (!held) return;
    engine.log.warn('leadership lost', { lease: name, holder, token: held.token, reason });
    held = undefined;
  };
  const attempt = async () => {
    const sentAt = performance.now();
    try {
      if (held && performance.now() >= validUntil) lose(`no renewal succeeded within ${leaseMs} ms`);
      if (held) {
        if (await renewLease(engine.db, held, leaseMs)) validUntil = sentAt + leaseMs;
        else lose('the lease was taken over or expired');
      }
      if (!held && !stopped) {
        const won = await acquireLease(engine.db, name, holder, leaseMs);
        if (won) {
          held = won;
          validUntil = sentAt + leaseMs;
          engine.log.warn('leadership acquired', { lease: name, holder, token: won.token });
        }
      }
      lastProblem = '';
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      if (message !== lastProblem) engine.log.error('lease attempt failed', { lease: name, error: message });
      lastProblem = message;
    }
  };
  let running = false;
  let again = false;
  const schedule = (ms: number) => {
    if (timer) clearTimeout(timer);
    timer = stopped ? undefined : setTimeout(loop, ms);
  };
  function loop() {
    if (stopped) return;
    running = true;
    current = attempt().finally(() => {
      running = false;
      schedule(again ? 0 : everyMs);
      again = false;
    });
  }
  /** An attempt as soon as the one in progress ends (a standby woken by a release). */
  const nudge = () => {
    if (stopped || held) return;
    if (running) again = true;
    else schedule(0);
  };
  loop();
  const ready = current;

  let sub: Redis | undefined;
  if (!engine.localBus) {
    const channel = leaseChannel(engine.config.prefix, name);
    const s = engine.redis.duplicate();
    sub = s;
    s.on('error', () => undefined);
    s.on('message', (ch: string) => {
      if (ch === channel) nudge();
    });
    s.subscribe(channel).catch(() => undefined);
  }

  return {
    isLeader: () => held !== undefined && performance.now() < validUntil,
    fence: () => (held && performance.now() < validUntil ? held : undefined),
    ready,
    async close() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await current;
      await sub?.quit().catch(() => sub?.disconnect());
      const fence = held;
      held = undefined;
      if (!fence) return;
      try {
        await releaseLease(engine.db, fence);
        engine.log.warn('leadership released', { lease: name, holder, token: fence.token });
        if (!engine.localBus) await engine.redis.publish(leaseChannel(engine.config.prefix, name), fence.token);
      } catch (err) {
        // The lease runs out by itself; a standby takes over then.
        engine.log.warn('lease release failed', { lease: name, error: err instanceof Error ? err.message : String(err) });
      }
    },
  };
}
