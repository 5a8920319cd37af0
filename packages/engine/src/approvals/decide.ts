/**
 * Use case: a person approves or rejects a parked output (Action Center). Approval publishes the
 * parked children through the normal outbox path (rows inserted in the transaction that marks the
 * message done, jobs added after commit; the relay re-adds any job lost in between) and the run
 * goes on; rejection dead-letters the message and fails the run with `input_rejected`, a sentence
 * naming the member, the person and their comment. Who decided what and when is kept on the
 * approval and in the item's history.
 */
import { APPROVAL_STATUSES } from '@trellis/db/schema/statuses';
import { z } from 'zod';
import { sql } from 'drizzle-orm';
import { appendAuditBy } from '../audit/append';
import { enqueue } from '../kernel/queues';
import { countMessages } from '../kernel/metrics';
import { recordEvents } from '../events/outbox';
import { ActionNotFoundError, ActionRefusedError } from '../ops/errors';
import { insertChildren, writeLeaves } from '../process/commit';
import type { ChildRow } from '../process/types';
import { failRun, finalizeRuns } from '../process/run-end';
import type { Engine } from '../kernel/engine';
import { rows } from '../kernel/sql';
import { approvalItemId } from '../lifecycle/park-approval';
import { msgStatus } from '../kernel/statuses';

/** What {@link decideApproval} needs. `comment` is required for a rejection (it goes in the sentence). */
export interface DecideApprovalInput {
  approvalId: string;
  decision: 'approve' | 'reject';
  /** The signed-in person (users.id). */
  userId: string;
  comment?: string | undefined;
}

/** What the decision did. */
export interface DecideApprovalResult {
  approvalId: string;
  runId: string;
  status: 'approved' | 'rejected';
  /** Messages published on approval. */
  published: number;
}

const ApprovalRow = z.object({
  id: z.string(),
  run_id: z.string(),
  mesh_id: z.string(),
  member: z.string(),
  member_label: z.string().nullable(),
  // jsonb lifecycle/park-approval.ts wrote from ChildRow values.
  children: z.custom<ChildRow[]>(Array.isArray, 'expected the parked children (a JSON array)'),
  leaf: z.object({ value: z.unknown() }).nullable(),
  status: z.enum(APPROVAL_STATUSES),
});

/**
 * Approves or rejects a pending approval.
 * @throws ActionNotFoundError when there is no such approval or user;
 *   ActionRefusedError when it was already decided, the run has ended (approve), or a rejection has no comment.
 */
export async function decideApproval(engine: Engine, input: DecideApprovalInput): Promise<DecideApprovalResult> {
  const comment = input.comment?.trim() ?? '';
  if (input.decision === 'reject' && comment === '') throw new ActionRefusedError('comment: say why the output is rejected');
  // Read before the transaction: the embedded database allows no query beside an open one.
  const [who] = await rows(engine.db, sql`select name from users where id = ${input.userId}`, z.object({ name: z.string() }));
  if (!who) throw new ActionNotFoundError(`user ${input.userId}`);
  const status = input.decision === 'approve' ? 'approved' : 'rejected';
  const itemId = approvalItemId(input.approvalId);
  const outcome = await engine.db.transaction(async (tx) => {
    const [a] = await rows(tx, sql`select id, run_id, mesh_id, member, member_label, children, leaf, status from approvals where id = ${input.approvalId} for update`, ApprovalRow);
    if (!a) throw new ActionNotFoundError(`approval ${input.approvalId}`);
    if (a.status !== 'pending') throw new ActionRefusedError(`this output was already ${a.status}`);
    const [run] = await rows(tx, sql`select status from runs where id = ${a.run_id} for update`, z.object({ status: z.string() }));
    if (input.decision === 'approve' && run?.status !== 'running' && run?.status !== 'stalled') {
      throw new ActionRefusedError(`run ${a.run_id} has ended (${run?.status ?? 'missing'}); its parked output can no longer be published`);
    }
    await tx.execute(
      sql`update approvals set status = ${status}, decided_by = ${input.userId}, decided_at = now(), comment = ${comment || null}
           where id = ${a.id}`,
    );
    let inserted: ChildRow[] = [];
    if (input.decision === 'approve') {
      await tx.execute(sql`update messages set status = ${msgStatus('done')}, finished_at = now() where id = ${a.id} and status = ${msgStatus('parked')}`);
      inserted = a.children.length === 0 ? [] : await insertChildren(tx, a.children);
      if (a.leaf) await writeLeaves(tx, [{ id: a.id, runId: a.run_id, value: a.leaf.value }]);
      await tx.execute(sql`update runs set moved_at = now() where id = ${a.run_id}`);
    } else {
      const where = a.member_label ?? a.member;
      const said = `${who.name} rejected the output of ${where}: ${comment}`;
      await tx.execute(
        sql`update messages set status = ${msgStatus('dead')}, finished_at = now(), error = ${said} where id = ${a.id} and status = ${msgStatus('parked')}`,
      );
      await failRun(tx, a.run_id, { cause: 'input_rejected', member: a.member, memberLabel: where, detail: `${who.name} rejected its output: ${comment}` });
    }
    await tx.execute(
      sql`update action_items set state = 'resolved', resolved_at = now(), resolved_by = ${input.userId},
                 resolution = ${comment || status}, updated_at = now()
           where id = ${itemId}`,
    );
    await tx.execute(
      sql`insert into action_item_history (item_id, action, actor, detail)
          values (${itemId}, ${status}, ${input.userId}, ${JSON.stringify({ comment: comment || null, runId: a.run_id })}::jsonb)`,
    );
    await appendAuditBy(tx, input.userId, { action: `approval.${input.decision}`, target: a.id, detail: { runId: a.run_id, member: a.member, comment: comment || null } });
    await recordEvents(tx, [
      { kind: 'approval.changed', runId: a.run_id, itemId, meshId: a.mesh_id, status },
      { kind: 'item.changed', itemId, meshId: a.mesh_id, status: 'resolved' },
      { kind: 'run.status', runId: a.run_id, meshId: a.mesh_id, status: input.decision === 'approve' ? 'running' : 'failed' },
    ]);
    return { runId: a.run_id, inserted };
  });
  countMessages(status === 'approved' ? 'done' : 'dead', 1);
  countMessages('published', outcome.inserted.length);
  if (outcome.inserted.length > 0) {
    await enqueue(engine, outcome.inserted.map((c) => ({ pool: c.pool, runId: c.run_id, messageId: c.id, member: c.member })));
  } else if (input.decision === 'approve') {
    await finalizeRuns(engine, [outcome.runId]);
  }
  return { approvalId: input.approvalId, runId: outcome.runId, status, published: outcome.inserted.length };
}
