/**
 * Fencing for the orchestrator's singleton duties (runtime/leader.ts). A leader holds the lease row
 * `orchestrator_lease(name)` with a fencing token that grows on every takeover. Each duty's write
 * calls {@link fenced} first in its own transaction: it locks the lease row (`for share`) and checks
 * that the row still carries the caller's holder and token and has not expired. A takeover updates
 * that row, so it waits for a fenced transaction in flight to end, and every fenced transaction after
 * it sees the new token and is refused: a leader paused past its lease (a long GC, SIGSTOP, a VM
 * migration) writes nothing once another has taken over (Kleppmann, "How to do distributed
 * locking", 2016: the storage checks the token, not the lock holder).
 */
import { z } from 'zod';
import { sql } from 'drizzle-orm';
import { EngineError } from './errors';
import { rows, type Queryable } from './sql';

/** A held lease: what a fenced write checks. `token` is the bigint fencing token as decimal text. */
export interface Fence {
  /** The lease's name (the row's key), e.g. `orchestrator`. */
  readonly name: string;
  /** Who holds it (runtime/leader.ts `holderId`). */
  readonly holder: string;
  readonly token: string;
}

/** A fenced write was refused: the lease `name` was taken over (its token moved on) or expired. */
export class FenceLostError extends EngineError {
  static override readonly httpStatus = 409;
  constructor(
    readonly fence: Fence,
    reason: string,
  ) {
    super('lease_lost', `the ${fence.name} lease with fencing token ${fence.token} is no longer held by ${fence.holder}: ${reason}; the write was refused`);
  }
}

const LeaseRow = z.object({ holder: z.string(), token: z.string(), live: z.boolean() });

/**
 * Checks, inside the caller's transaction `tx`, that `fence` still holds its lease, and locks the
 * lease row until `tx` ends so no takeover lands in between. Without a fence (a duty called outside
 * the orchestrator: tests, the CLI, the embedded single process) it does nothing.
 * @throws FenceLostError when the row is gone, names another holder or token, or has expired
 *   (database clock).
 */
export async function fenced(tx: Queryable, fence: Fence | undefined): Promise<void> {
  if (!fence) return;
  const [row] = await rows(
    tx,
    sql`select holder, token::text as token, expires_at > now() as live
          from orchestrator_lease where name = ${fence.name} for share`,
    LeaseRow,
  );
  if (!row) throw new FenceLostError(fence, 'the lease row is gone');
  if (row.token !== fence.token || row.holder !== fence.holder) throw new FenceLostError(fence, `${row.holder} took it over with token ${row.token}`);
  if (!row.live) throw new FenceLostError(fence, 'it expired without renewal');
}
