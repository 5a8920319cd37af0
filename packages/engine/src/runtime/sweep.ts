/** Periodic run checks: finishing runs the workers did not finish, and flagging stalled ones. */
import { z } from 'zod';
import { sql } from 'drizzle-orm';
import { causeSentence } from '@trellis/mesh/causes';
import { finalizeRuns } from '../process/run-end';
import { recordRunFailure } from '../lifecycle/record-failure';
import { rows } from '../kernel/sql';
import type { Engine } from '../kernel/engine';
import { msgStatus, runStatus, runStatuses } from '../kernel/statuses';
import { fenced, type Fence } from '../kernel/fence';

/**
 * Ends running runs whose messages are all done, covering races between workers' own post-commit
 * checks. (Failing needs no sweep: a message is dead-lettered or declared lost in the same
 * transaction that fails its run.) Checks at most 500 runs per pass, oldest first. With `fence`,
 * only while it holds the leader's lease (kernel/fence.ts).
 * @returns how many runs it ended.
 * @throws FenceLostError when `fence` lost its lease.
 */
export async function sweepRuns(engine: Engine, fence?: Fence): Promise<number> {
  const open = await rows(
    engine.db,
    sql`select id from runs where status in ${runStatuses('running', 'stalled')} order by created_at limit 500`,
    z.object({ id: z.string() }),
  );
  return (await finalizeRuns(engine, open.map((r) => r.id), fence)).length;
}

/**
 * Flags running runs where nothing moved for `stallAfterMs` as `stalled` (cause `stalled`).
 * Parked work waits on purpose and is not a stall; nor is a step running under a live lease (a
 * worker renews it while the step runs, process/lease.ts), however long the step takes. A stalled
 * run that moves again runs on, and its item clears itself (lifecycle/clear-stalled.ts). Flagging
 * and the Action Center items are one transaction; with `fence` it first checks the leader's lease.
 * @returns the ids of the runs it flagged.
 * @throws FenceLostError when `fence` lost its lease; nothing is flagged then.
 */
export async function detectStalls(engine: Engine, fence?: Fence): Promise<string[]> {
  const seconds = Math.round(engine.config.stallAfterMs / 1000);
  const detail = `nothing moved for ${seconds} s; check that workers are running for every pool`;
  const sentence = causeSentence({ cause: 'stalled', detail });
  return engine.db.transaction(async (tx) => {
    await fenced(tx, fence);
    const flagged = await rows(
      tx,
      sql`update runs set status = ${runStatus('stalled')}, cause = 'stalled', cause_member = null, cause_message = ${sentence}
         where status = ${runStatus('running')}
           and moved_at < now() - make_interval(secs => ${engine.config.stallAfterMs / 1000})
           and not exists (select 1 from messages m where m.run_id = runs.id
                             and (m.status = ${msgStatus('parked')} or (m.status = ${msgStatus('running')} and m.lease_until > now())))
     returning id`,
      z.object({ id: z.string() }),
    );
    // Each stalled run joins its mesh's open `stalled` item (lifecycle/record-failure.ts).
    for (const r of flagged) await recordRunFailure(tx, r.id, { cause: 'stalled', detail });
    return flagged.map((r) => r.id);
  });
}
