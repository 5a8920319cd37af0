/**
 * Leases on heavy messages (DESIGN.md §3 "Leases and fencing"). A heavy member's delivery holds a
 * lease on its message row while its step runs: an owner, a fencing token and an expiry
 * (`lease_owner`, `lease_token`, `lease_until`). The keeper renews every lease it holds in one
 * statement every `renewMs`; another delivery of a leased message waits until the lease ends
 * (process/claim.ts `claimHeavy`), and the commit that ends the step must carry the token
 * (`completeHeavy`), so a stale owner's commit changes nothing.
 *
 * A lease that cannot be renewed (another delivery took the message over after it lapsed) and a
 * run that has ended abort the step through its `AbortSignal`: the reason is a {@link LeaseLostError}
 * or a {@link RunEndedError}. Before each outside effect a step calls `guard()`: when the local
 * clock says the lease may have lapsed (the process was frozen or its event loop blocked), it renews
 * first and throws instead of acting if the lease is gone.
 */
import { RUN_STATUSES } from '@trellis/db/schema/statuses';
import { z } from 'zod';
import { hostname } from 'node:os';
import { sql } from 'drizzle-orm';
import { rows, type Queryable } from '../kernel/sql';
import { msgStatus } from '../kernel/statuses';
import { leaseLapses } from '../kernel/metrics';

const RenewedRow = z.object({ id: z.string(), run_status: z.enum(RUN_STATUSES) });

/** The lease a delivery took: the message, its fencing token, and what its step listens to. */
export interface Lease {
  readonly messageId: string;
  readonly runId: string;
  readonly token: string;
  /** Aborted when the lease is lost or the run ends; `signal.reason` says which. */
  readonly signal: AbortSignal;
  /**
   * Resolves when the lease is still this delivery's; call it before each outside effect.
   * @throws LeaseLostError or RunEndedError (and aborts the signal) when it is not.
   */
  guard(): Promise<void>;
}

/** The lease was taken over by another delivery after it lapsed: this one must not act or commit. */
export class LeaseLostError extends Error {
  constructor(messageId: string) {
    super(`the lease on message ${messageId} lapsed and another delivery took it over`);
    this.name = 'LeaseLostError';
  }
}

/** The message's run ended (failed or cancelled) while its step ran: the step is stopped. */
export class RunEndedError extends Error {
  constructor(
    readonly runId: string,
    status: string,
  ) {
    super(`run ${runId} ended (${status}) while the step ran; the step was stopped`);
    this.name = 'RunEndedError';
  }
}

/**
 * The worker is draining (it was told to stop, runtime/boot.ts) and its drain deadline passed while
 * the step ran: the step is stopped and its message handed back, uncounted, for another worker.
 */
export class DrainedError extends Error {
  constructor(messageId: string) {
    super(`the worker is stopping: message ${messageId} is handed back to another worker`);
    this.name = 'DrainedError';
  }
}

/** True for the abort reasons of a {@link Lease}: the step was stopped on purpose, not failed. */
export function isStopped(err: unknown): err is LeaseLostError | RunEndedError {
  return err instanceof LeaseLostError || err instanceof RunEndedError;
}

interface Held {
  messageId: string;
  runId: string;
  token: string;
  controller: AbortController;
  /** Local time (ms) until which the lease is surely held: when the last renewal was sent + lease. */
  validUntil: number;
}

let workerSeq = 0;

/** A lease owner name for this process: `<host>/<pid>/<n>`. */
export function leaseOwnerName(): string {
  return `${hostname()}/${process.pid}/${++workerSeq}`;
}

/** Holds and renews one worker's leases. */
export class LeaseKeeper {
  readonly owner = leaseOwnerName();
  private readonly held = new Map<string, Held>();
  private timer: NodeJS.Timeout | undefined;
  private renewing: Promise<void> | undefined;
  private drained = false;

  /**
   * @param db where the message rows are
   * @param leaseMs how long a lease lasts without renewal
   * @param renewMs how often held leases are renewed (well under `leaseMs`)
   */
  constructor(
    private readonly db: Queryable,
    readonly leaseMs: number,
    private readonly renewMs: number,
  ) {}

  /** Starts holding a lease this process just took (its row already carries `token`). */
  hold(messageId: string, runId: string, token: string, takenAt: number): Lease {
    const controller = new AbortController();
    const held: Held = { messageId, runId, token, controller, validUntil: takenAt + this.leaseMs };
    this.held.set(messageId, held);
    // Taken after the drain deadline (a batch that was claiming then): stopped before it starts.
    if (this.drained) controller.abort(new DrainedError(messageId));
    this.timer ??= setInterval(() => void this.renew(), this.renewMs);
    this.timer.unref();
    return {
      messageId,
      runId,
      token,
      signal: controller.signal,
      guard: () => this.guard(held),
    };
  }

  /** Stops holding a lease (the step ended; its commit or release clears the row's lease). */
  release(messageId: string): void {
    this.held.delete(messageId);
    if (this.held.size === 0 && this.timer) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }

  /** Aborts every held step of the run: it has ended (a person cancelled it, or it failed). */
  abortRun(runId: string, status: string): number {
    let n = 0;
    for (const h of this.held.values()) {
      if (h.runId === runId && !h.controller.signal.aborted) {
        h.controller.abort(new RunEndedError(runId, status));
        n++;
      }
    }
    return n;
  }

  /**
   * The drain deadline passed: aborts every held step with a {@link DrainedError}, and every lease
   * taken from now on at once. The leases stay held (and renewed) until each step has stopped and
   * handed its message back, or, having finished despite the abort, committed.
   * @returns how many steps were aborted.
   */
  drain(): number {
    this.drained = true;
    let n = 0;
    for (const h of this.held.values()) {
      if (!h.controller.signal.aborted) {
        h.controller.abort(new DrainedError(h.messageId));
        n++;
      }
    }
    return n;
  }

  /** Ids of the runs that have steps running here. */
  runIds(): string[] {
    return [...new Set([...this.held.values()].map((h) => h.runId))];
  }

  /** Aborts and forgets every lease (the worker is closing hard). */
  close(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.held.clear();
  }

  private async guard(held: Held): Promise<void> {
    const stopped = () => {
      const why: unknown = held.controller.signal.reason;
      return why instanceof Error ? why : new LeaseLostError(held.messageId);
    };
    if (held.controller.signal.aborted) throw stopped();
    // Comfortably inside the lease by the local clock: no round trip needed.
    if (Date.now() < held.validUntil - this.renewMs) return;
    await this.renewNow([held]);
    if (held.controller.signal.aborted) throw stopped();
    // The renewal could not be confirmed (the database did not answer) and the lease may have
    // lapsed: acting now could repeat an effect another delivery makes, so do not act.
    if (Date.now() >= held.validUntil) {
      leaseLapses.inc();
      held.controller.abort(new LeaseLostError(held.messageId));
      throw stopped();
    }
  }

  private renew(): Promise<void> {
    this.renewing ??= this.renewNow([...this.held.values()]).finally(() => (this.renewing = undefined));
    return this.renewing;
  }

  /**
   * One statement for every lease given: extends the ones still carrying their token and reads
   * their run's status; aborts the steps whose lease is gone or whose run has ended. A database
   * that does not answer changes nothing here: the lease runs on its last expiry.
   */
  private async renewNow(list: readonly Held[]): Promise<void> {
    // A drained step still holds its lease until it has handed its message back or committed.
    const live = list.filter((h) => !h.controller.signal.aborted || h.controller.signal.reason instanceof DrainedError);
    if (live.length === 0) return;
    const sentAt = Date.now();
    let got: { id: string; run_status: string }[];
    try {
      got = await rows(
        this.db,
        sql`update messages m set lease_until = now() + make_interval(secs => ${this.leaseMs / 1000})
              from json_to_recordset(${JSON.stringify(live.map((h) => ({ id: h.messageId, token: h.token })))}::json) as x(id text, token text),
                   runs r
             where m.id = x.id and m.lease_token = x.token and m.status = ${msgStatus('running')} and r.id = m.run_id
         returning m.id, r.status as run_status`,
        RenewedRow,
      );
    } catch {
      return;
    }
    const answered = new Map(got.map((r) => [r.id, r.run_status]));
    for (const h of live) {
      if (!this.held.has(h.messageId)) continue;
      const status = answered.get(h.messageId);
      if (status === undefined) {
        leaseLapses.inc();
        h.controller.abort(new LeaseLostError(h.messageId));
      }
      else if (status !== 'running' && status !== 'stalled') h.controller.abort(new RunEndedError(h.runId, status));
      else h.validUntil = sentAt + this.leaseMs;
    }
  }
}
