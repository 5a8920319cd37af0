/**
 * A worker for one pool on the in-process bus (kernel/local-bus.ts): the same batcher, heavy lane,
 * retries, dead-letter and lease rules as the BullMQ worker (runtime/worker.ts), with the message
 * rows as the queue. It claims due rows of its pool with `FOR UPDATE SKIP LOCKED`, holding each
 * under `bus_until` (renewed at half of `lockDurationMs` while in hand, like a BullMQ lock), and
 * turns each outcome into the row's bus state: ack = released, retry = `not_before` after an
 * exponential backoff of `backoffMs · 2^tries`, wait = `not_before` at the lease's end, last
 * attempt or unretryable = dead-lettered, drained (handed back by a stopping worker) = released
 * with nothing counted. A claim that finds a row whose previous holder went away
 * counts a stall; more than `maxStalledCount` stalls dead-letters the message (as the relay does
 * for a job BullMQ failed after lost locks). A pending row under a live lease is an inline message
 * (process/inline-lane.ts) that a lane of this process holds: it is skipped, exactly as the relay
 * skips it on BullMQ, and claimed like any other once that lease lapses (its lane died with the
 * process, or handed it back). It sleeps until woken by an enqueue, a freed slot or a
 * due time it set itself, with a slow poll ({@link BACKSTOP_MS}) as the backstop.
 * Priority (kernel/priority.ts) is honoured the same way: each claim takes rows of urgent runs
 * first, up to `urgentSlots` of them in hand, then normal rows with the slots left (so normal work
 * keeps the reserved share, as on BullMQ).
 */
import { z } from 'zod';
import { sql } from 'drizzle-orm';
import type { Batcher } from '../process/batcher';
import type { HeavyLane } from '../process/batch';
import type { Delivery } from '../process/claim';
import { deadLetter, settleFailedDelivery } from '../process/dead-letter';
import type { Outcome } from '../process/types';
import type { Engine } from '../kernel/engine';
import type { LocalBus } from '../kernel/local-bus';
import { rows, textArray } from '../kernel/sql';
import { msgStatus, msgStatuses, runStatuses } from '../kernel/statuses';
import { UNDER_INLINE_LEASE } from '../process/inline-lane';
import { stalledOut } from './relay';

/** Longest the worker sleeps without looking for due rows, in ms. */
export const BACKSTOP_MS = 1_000;

const Claimed = z.object({ id: z.string(), run_id: z.string(), member: z.string(), bus_tries: z.number(), bus_stalls: z.number() });
type Claimed = z.output<typeof Claimed> & { urgent?: boolean };

/** Which rows a claim takes: of urgent runs, or of the others. */
type Which = 'urgent' | 'normal';

const URGENT_RUNS = sql`(select id from runs where urgent and status in ${runStatuses('queued', 'running', 'stalled')})`;

/** Starts serving `pool` from the rows; resolves `close()` once the messages in hand are finished. */
export function startLocalWorker(
  engine: Engine,
  bus: LocalBus,
  pool: string,
  concurrency: number,
  lane: HeavyLane,
  batcher: Batcher<Delivery, Outcome>,
  priority: { urgentSlots: number } = { urgentSlots: concurrency },
): { close(): Promise<void> } {
  const held = new Set<string>();
  let urgentHeld = 0;
  const inFlight = new Set<Promise<void>>();
  let stopped = false;
  let kick: (() => void) | undefined;
  let woken = false;
  const wake = () => {
    woken = true;
    kick?.();
  };
  const stopWake = bus.onWake(pool, wake);
  const lockMs = engine.config.lockDurationMs;
  const renew = setInterval(() => {
    if (held.size === 0) return;
    engine.db
      .execute(sql`update messages set bus_until = now() + make_interval(secs => ${lockMs / 1000}) where id = any(${textArray([...held])}) and bus_until is not null`)
      .catch((err: unknown) => engine.log.warn('bus claim renewal failed', { pool, error: String(err) }));
  }, Math.max(lockMs / 2, 50));

  const later = (at: number) => {
    const t = setTimeout(() => bus.wake(pool), Math.max(at - Date.now(), 0));
    t.unref();
  };

  const claim = async (n: number, which: Which): Promise<Claimed[]> =>
    rows(
      engine.db,
      sql`with c as (
            select id, bus_until is not null as stalled from messages
             where pool = ${pool} and status in ${msgStatuses('pending', 'running')}
               and (not_before is null or not_before <= now())
               and (bus_until is null or bus_until < now())
               and not ${UNDER_INLINE_LEASE}
               ${which === 'urgent' ? sql`and run_id in ${URGENT_RUNS}` : sql`and run_id not in ${URGENT_RUNS}`}
             limit ${n} for update skip locked)
          update messages m set bus_until = now() + make_interval(secs => ${lockMs / 1000}), bus_stalls = m.bus_stalls + c.stalled::int
            from c where m.id = c.id
        returning m.id, m.run_id, m.member, m.bus_tries, m.bus_stalls`,
      Claimed,
    );

  // A row not done after an ack (parked, dead, cancelled, or still open because its run ended) is
  // finished as far as the bus goes: its claim is released so that an enqueue (a re-open, a parked
  // message continued) makes it a fresh job again at once. A done row is never claimed or re-added,
  // so it keeps its last claim time and is not written again: acks need one statement a batch.
  const acks = new Coalescer(async (ids) => {
    await engine.db.execute(
      sql`update messages set bus_until = null, not_before = 'infinity' where id = any(${textArray(ids)}) and status <> ${msgStatus('done')}`,
    );
  });

  const settle = async (m: Claimed, set: ReturnType<typeof sql>): Promise<void> => {
    await engine.db.execute(sql`update messages set ${set} where id = ${m.id}`);
  };

  const handle = async (m: Claimed): Promise<void> => {
    if (m.bus_stalls > engine.config.maxStalledCount) {
      await deadLetter(engine, m.id, new Error(stalledOut(m.bus_stalls)));
      await settle(m, sql`bus_until = null`);
      return;
    }
    const outcome = await batcher.submit(m.id, { messageId: m.id, runId: m.run_id, member: m.member });
    if (outcome.kind === 'ack') {
      await acks.add(m.id);
      return;
    }
    if (outcome.kind === 'drained') {
      // The worker is stopping: the claim is released, no try or stall counted, for the next start.
      await settle(m, sql`bus_until = null`);
      return;
    }
    if (outcome.kind === 'wait') {
      const at = Math.max(outcome.until, Date.now()) + 100;
      await settle(m, sql`bus_until = null, not_before = to_timestamp(${at / 1000})`);
      later(at);
      return;
    }
    const err = outcome.error;
    const lastAttempt = m.bus_tries + 1 >= engine.config.attempts;
    const verdict = await settleFailedDelivery(engine, { messageId: m.id, runId: m.run_id, error: err, leaseToken: outcome.leaseToken, lastAttempt }, (id) =>
      lane.leases.abortRun(id, 'failed'),
    );
    if (verdict === 'dead') {
      await settle(m, sql`bus_until = null, bus_tries = bus_tries + 1`);
      engine.log.info('delivery failed', { pool, job: m.id, error: err.message });
      return;
    }
    const delay = engine.config.backoffMs * 2 ** m.bus_tries;
    await settle(m, sql`bus_until = null, bus_tries = bus_tries + 1, not_before = now() + make_interval(secs => ${delay / 1000})`);
    later(Date.now() + delay);
    engine.log.info('delivery failed', { pool, job: m.id, error: err.message });
  };

  const start = (m: Claimed) => {
    held.add(m.id);
    if (m.urgent) urgentHeld++;
    const p: Promise<void> = handle(m)
      .catch((err: unknown) => engine.log.error('worker error', { pool, error: err instanceof Error ? err.message : String(err) }))
      .finally(() => {
        held.delete(m.id);
        if (m.urgent) urgentHeld--;
        inFlight.delete(p);
        wake();
      });
    inFlight.add(p);
  };

  // Urgent rows first (up to their slots), then normal rows with the slots left.
  const claimByPriority = async (free: number): Promise<Claimed[]> => {
    const urgentFree = Math.min(free, priority.urgentSlots - urgentHeld);
    const urgent = urgentFree > 0 ? await claim(urgentFree, 'urgent') : [];
    const normal = free - urgent.length > 0 ? await claim(free - urgent.length, 'normal') : [];
    return [...urgent.map((m) => ({ ...m, urgent: true })), ...normal];
  };

  const loop = async () => {
    await bus.recoverClaims();
    while (!stopped) {
      woken = false;
      const free = concurrency - inFlight.size;
      let got = 0;
      if (free > 0) {
        try {
          const claimed = await claimByPriority(free);
          got = claimed.length;
          for (const m of claimed) start(m);
        } catch (err) {
          engine.log.error('worker error', { pool, error: err instanceof Error ? err.message : String(err) });
        }
      }
      if (stopped) break;
      if (got > 0 && got === free) continue;
      if (woken) continue;
      await new Promise<void>((resolve) => {
        const t = setTimeout(done, BACKSTOP_MS);
        function done() {
          clearTimeout(t);
          kick = undefined;
          resolve();
        }
        kick = done;
      });
    }
  };
  const running = loop().catch((err: unknown) => engine.log.error('worker error', { pool, error: err instanceof Error ? err.message : String(err) }));

  return {
    async close() {
      stopped = true;
      kick?.();
      await running;
      while (inFlight.size > 0) await Promise.all([...inFlight]);
      stopWake();
      clearInterval(renew);
    },
  };
}

/** Gathers the ids added in one turn of the event loop and writes them with one call. */
class Coalescer {
  private pending: string[] = [];
  private flushing: Promise<void> | undefined;

  constructor(private readonly write: (ids: string[]) => Promise<void>) {}

  add(id: string): Promise<void> {
    this.pending.push(id);
    this.flushing ??= new Promise<void>((resolve) => setImmediate(resolve)).then(async () => {
      const ids = this.pending;
      this.pending = [];
      this.flushing = undefined;
      await this.write(ids);
    });
    return this.flushing;
  }
}
