/**
 * The in-process bus: the second implementation of the bus contract (kernel/queues.ts), for the
 * single-process desktop mode (embedded database, no REDIS_URL). The message row in Postgres is the
 * job: `bus_until` is the delivery claim (BullMQ's job lock), `not_before` the backoff or wait,
 * `bus_tries` the failed deliveries (BullMQ's attemptsMade) and `bus_stalls` the claims whose holder
 * went away (BullMQ's stalled counter). Workers (runtime/local-worker.ts) are woken in-process by
 * an EventEmitter when messages are queued; a slow poll is the backstop. Pub/sub channels (live
 * events, service wake-ups) are the same emitter. One process owns the database (PGlite refuses a
 * second), so claims left by an earlier process are handed back when the first worker starts.
 */
import { EventEmitter } from 'node:events';
import { sql } from 'drizzle-orm';
import type { Queryable } from './sql';
import { textArray } from './sql';
import { msgStatuses } from './statuses';
import type { Bus, Outgoing } from './queues';

/** What the bus needs of its engine. */
export interface LocalBusHost {
  readonly db: Queryable;
}

/** The in-process bus of one engine (the `local` implementation of the bus contract). */
export class LocalBus implements Bus {
  readonly kind = 'local' as const;
  private readonly emitter = new EventEmitter();
  private recovered: Promise<number> | undefined;

  constructor(private readonly host: LocalBusHost) {
    this.emitter.setMaxListeners(0);
  }

  /**
   * Puts messages on the bus: their rows are the jobs already, so this resets the bus state of any
   * that an earlier delivery finished with (as BullMQ adds a fresh job once the old one is gone)
   * and wakes the workers of their pools. A message already queued is untouched (same as a jobId
   * that exists).
   */
  async enqueue(items: readonly Outgoing[]): Promise<void> {
    if (items.length === 0) return;
    await this.host.db.execute(
      sql`update messages set not_before = null, bus_tries = 0, bus_stalls = 0, bus_until = null
           where id = any(${textArray(items.map((m) => m.messageId))})
             and bus_until is null and (not_before = 'infinity' or bus_tries > 0 or bus_stalls > 0)
             and status in ${msgStatuses('pending', 'running')}`,
    );
    for (const pool of new Set(items.map((m) => m.pool))) this.wake(pool);
  }

  /** Wakes the workers of `pool` (a message became due). */
  wake(pool: string): void {
    this.emitter.emit(`pool:${pool}`);
  }

  /** Wakes the workers of every pool (runs marked urgent: their rows are claimed first now). */
  wakeAll(): void {
    for (const name of this.emitter.eventNames()) if (typeof name === 'string' && name.startsWith('pool:')) this.emitter.emit(name);
  }

  /** Calls `listener` whenever `pool` is woken. @returns a function that stops listening. */
  onWake(pool: string, listener: () => void): () => void {
    this.emitter.on(`pool:${pool}`, listener);
    return () => this.emitter.off(`pool:${pool}`, listener);
  }

  /** Publishes `text` on `channel` to this process's subscribers (delivered on a later tick). */
  publish(channel: string, text: string): void {
    setImmediate(() => this.emitter.emit(`ch:${channel}`, text));
  }

  /** Subscribes to `channel`. @returns a function that unsubscribes. */
  subscribe(channel: string, listener: (text: string) => void): () => void {
    this.emitter.on(`ch:${channel}`, listener);
    return () => this.emitter.off(`ch:${channel}`, listener);
  }

  /**
   * Once per bus: hands back the claims an earlier process held when it died (kill -9), counting a
   * stall on each, so its messages are delivered again now rather than after their lock lapses.
   * @returns how many claims were handed back.
   */
  recoverClaims(): Promise<number> {
    this.recovered ??= this.host.db
      .execute(
        sql`update messages set bus_until = null, bus_stalls = bus_stalls + 1
             where bus_until is not null and status in ${msgStatuses('pending', 'running')}`,
      )
      .then((r) => (r as { affectedRows?: number; rowCount?: number }).affectedRows ?? (r as { rowCount?: number }).rowCount ?? 0);
    return this.recovered;
  }

  /** Drops every listener. */
  close(): void {
    this.emitter.removeAllListeners();
  }
}
