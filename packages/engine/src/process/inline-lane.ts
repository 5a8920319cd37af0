/**
 * The inline lane: children whose member is light (a combine, a built-in workflow step; see
 * members/index.ts `laneOf`) are processed by the worker whose commit inserted them, from its own
 * in-memory queue and in its own batching, instead of becoming BullMQ jobs (three Redis round trips
 * and Lua scripts each).
 *
 * The message row is the claim. The commit inserts an inline child with a lease owned by this
 * worker (`lease_owner`, `lease_until = now() + inlineLeaseMs`), renewed once past half of it while
 * the child waits here. The outbox relay (runtime/relay.ts) skips a pending row whose lease is live; when
 * the worker dies, its leases lapse and the relay adds those rows as ordinary jobs with the same ids.
 * On the in-process bus (kernel/local-bus.ts) the rows are the queue: its claim (runtime/local-worker.ts)
 * skips the same live leases and takes those rows once the leases lapse (the process died).
 * Light messages complete under a status guard in the commit transaction (process/claim.ts
 * `completeLight`), so a row handled both here and by a redelivered job is completed once.
 *
 * Only children for the worker's own pool are kept: a member on another pool is served there.
 * Bounded: beyond `inlineMax` messages in hand (a soft cap: the commits in flight may each add one
 * batch past it), children go to BullMQ as before. A child whose light step failed is handed to
 * BullMQ (its lease cleared) so it gets the usual attempts, backoff and dead-lettering. `close()`
 * takes no more children (they go to BullMQ) and finishes the ones in hand, or, past a drain
 * deadline, hands the ones not yet started to BullMQ.
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import type { Engine } from '../kernel/engine';
import { enqueue } from '../kernel/queues';
import { textArray } from '../kernel/sql';
import { msgStatus } from '../kernel/statuses';
import { laneOf } from '../members/index';
import type { Plan } from '../plan/plan';
import { Batcher } from './batcher';
import type { Delivery } from './claim';
import { DRAINED, type ChildRow, type Outcome } from './types';

/**
 * SQL: the row (of `messages`, unaliased) is a pending message a live inline lease holds, which
 * the relay (on BullMQ) and the in-process bus's claim both leave alone until the lease lapses.
 * A re-open's short hold (runs/reopen-run.ts) is the same kind of lease, with no owner.
 */
export const UNDER_INLINE_LEASE = sql`(status = ${msgStatus('pending')} and lease_until is not null and lease_until >= now())`;

/** Most inline messages in one batch (the same group commit as deliveries, larger: no Redis acks). */
const INLINE_BATCH = 500;

/** Processes deliveries (process/batch.ts `processBatch` bound to a worker's heavy lane). */
export type ProcessDeliveries = (items: Delivery[]) => Promise<Map<string, Outcome | Promise<Outcome>>>;

/** Counters since the lane started: children kept inline, and children sent to BullMQ. */
export interface InlineStats {
  inlined: number;
  enqueued: number;
  /** Inline children handed to BullMQ afterwards (their step failed, or a wait). */
  handedBack: number;
}

/** One worker's inline lane. Create one per worker, then {@link InlineLane.start} it. */
export class InlineLane {
  /** The `lease_owner` this lane writes on the rows it holds. */
  readonly owner = `inline:${randomUUID()}`;
  readonly stats: InlineStats = { inlined: 0, enqueued: 0, handedBack: 0 };
  /** Rows in hand, with when their lease ends as this lane last set it (epoch ms). */
  private readonly held = new Map<string, { row: ChildRow; until: number }>();
  private batcher: Batcher<Delivery, Outcome> | undefined;
  private closing = false;
  private drained: (() => void) | undefined;
  private readonly renewal: NodeJS.Timeout;
  private renewing = false;

  /** `pool`: the worker's pool; children for another pool are always jobs on that pool's queue. */
  constructor(
    private readonly engine: Engine,
    private readonly pool: string,
  ) {
    this.renewal = setInterval(() => void this.renew(), Math.max(Math.floor(engine.config.inlineLeaseMs / 4), 50));
    this.renewal.unref();
  }

  /** Wires the lane to its worker's processing; until then (and when closing) every child goes to BullMQ. */
  start(process: ProcessDeliveries): void {
    this.batcher = new Batcher<Delivery, Outcome>(process, { maxBatch: INLINE_BATCH, maxInFlight: this.engine.config.batchesInFlight });
  }

  /** Messages in hand (queued or being processed). */
  get size(): number {
    return this.held.size;
  }

  /**
   * Inside the commit transaction, before the children are inserted: marks the light ones this lane
   * will take (up to its cap) with its lease, so they are inserted already claimed.
   */
  mark(children: readonly ChildRow[], plans: ReadonlyMap<string, Plan>): void {
    if (!this.batcher || this.closing) return;
    let room = this.engine.config.inlineMax - this.held.size;
    for (const c of children) {
      if (room <= 0) return;
      if (c.pool !== this.pool) continue;
      const member = plans.get(c.run_id)?.members.get(c.member);
      if (!member || laneOf(member) === 'heavy' || laneOf(member) === 'park') continue;
      c.lease_owner = this.owner;
      c.lease_ms = this.engine.config.inlineLeaseMs;
      room--;
    }
  }

  /**
   * After commit: takes the inserted children this lane marked into its queue and returns the rest,
   * whose jobs the caller adds. Children marked by another lane (none today) are not taken.
   */
  take(inserted: readonly ChildRow[]): ChildRow[] {
    const rest: ChildRow[] = [];
    const batcher = this.batcher;
    for (const c of inserted) {
      if (!batcher || c.lease_owner !== this.owner) {
        rest.push(c);
        continue;
      }
      this.held.set(c.id, { row: c, until: Date.now() + this.engine.config.inlineLeaseMs });
      this.stats.inlined++;
      batcher.submit(c.id, { messageId: c.id, runId: c.run_id, member: c.member }).then(
        (o) => this.settle(c, o),
        (err: unknown) => this.settle(c, { kind: 'failed', error: err instanceof Error ? err : new Error(String(err)) }),
      );
    }
    this.stats.enqueued += rest.length;
    return rest;
  }

  /**
   * Takes no more children and resolves when every one in hand is finished or handed to BullMQ.
   * When `deadline` aborts first (a drain deadline, runtime/worker.ts), the children still waiting
   * for a batch are handed to BullMQ at once (their leases released, jobs added under their ids),
   * and only the batches being processed are finished.
   */
  async close(deadline?: AbortSignal): Promise<void> {
    this.closing = true;
    const handBack = () => this.batcher?.refuse(DRAINED);
    if (deadline?.aborted) handBack();
    else deadline?.addEventListener('abort', handBack, { once: true });
    if (this.held.size > 0) await new Promise<void>((resolve) => (this.drained = resolve));
    deadline?.removeEventListener('abort', handBack);
    clearInterval(this.renewal);
  }

  private settle(c: ChildRow, outcome: Outcome): void {
    const done = outcome.kind === 'ack' ? Promise.resolve() : this.handBack(c, outcome.kind === 'failed' ? outcome.error.message : outcome.kind);
    void done.finally(() => {
      this.held.delete(c.id);
      if (this.held.size === 0) this.drained?.();
    });
  }

  /**
   * A child this lane cannot finish itself: its lease is cleared and it becomes an ordinary job
   * (same id). If that fails too, the lease lapses and the relay adds the job.
   */
  private async handBack(c: ChildRow, why: string): Promise<void> {
    this.stats.handedBack++;
    try {
      await this.engine.db.execute(
        sql`update messages set lease_owner = null, lease_until = null
             where id = ${c.id} and lease_owner = ${this.owner} and status = ${msgStatus('pending')}`,
      );
      await enqueue(this.engine, [{ pool: c.pool, runId: c.run_id, messageId: c.id, member: c.member }]);
    } catch (err) {
      this.engine.log.warn('inline message left for the relay', { message: c.id, reason: why, error: err instanceof Error ? err.message : String(err) });
    }
  }

  /**
   * Extends the leases of the rows in hand that are past half their lease and still pending (one
   * statement). Rows processed within half a lease, the usual case, are never rewritten for it.
   */
  private async renew(): Promise<void> {
    const leaseMs = this.engine.config.inlineLeaseMs;
    const now = Date.now();
    const due = [...this.held].filter(([, h]) => h.until - now < leaseMs / 2);
    if (this.renewing || due.length === 0) return;
    this.renewing = true;
    try {
      for (const [, h] of due) h.until = now + leaseMs;
      await this.engine.db.execute(
        sql`update messages set lease_until = now() + make_interval(secs => ${leaseMs / 1000})
             where id = any(${textArray(due.map(([id]) => id))}) and lease_owner = ${this.owner} and status = ${msgStatus('pending')}`,
      );
    } catch (err) {
      this.engine.log.warn('inline lease renewal failed', { error: err instanceof Error ? err.message : String(err) });
    } finally {
      this.renewing = false;
    }
  }
}
