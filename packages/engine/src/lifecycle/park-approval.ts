/**
 * Parking a member's output for approval (member field `approval: 'required'`): instead of its
 * children being inserted, its message is marked `parked` and the children it would have published
 * are kept on an `approvals` row, with an Action Center item, in the delivery transaction. No worker
 * waits; {@link decideApproval} (./decide.ts) publishes them or fails the run.
 */
import { z } from 'zod';
import { sql } from 'drizzle-orm';
import { recordEvents } from '../events/outbox';
import type { Claimed, ChildRow } from '../process/types';
import type { Plan } from '../plan/plan';
import { rows, textArray, type Queryable, timestamp } from '../kernel/sql';
import { approvalStatus, msgStatus } from '../kernel/statuses';

/** One message whose output waits for a person. */
export interface ParkedOutput {
  msg: Claimed;
  plan: Plan;
  memberId: string;
  /** The child rows it would have inserted (deterministic ids, so approval writes the same ones). */
  children: ChildRow[];
  /** A leaf member's output, written to the message and the run on approval. */
  leaf?: { value: unknown } | undefined;
}

/** The Action Center item id of an approval (one per approval, never reused). */
export function approvalItemId(approvalId: string): string {
  return `approval-${approvalId}`;
}

/**
 * Marks the messages `parked`, records one pending approval per message (a redelivered message
 * records nothing twice) and opens an approval item for each new one, in the caller's transaction.
 * A message parked again after its approval was decided (its run was re-opened after a rejection)
 * gets that approval back as pending and its item re-opened; the earlier decision (status, who,
 * when, comment) stays in the item's history: the `rejected`/`approved` entry, and the `reopened`
 * entry's `detail.previous`.
 */
export async function parkForApproval(tx: Queryable, parked: readonly ParkedOutput[]): Promise<void> {
  if (parked.length === 0) return;
  await tx.execute(
    sql`update messages set status = ${msgStatus('parked')}, finished_at = null
         where id = any(${textArray(parked.map((p) => p.msg.id))})`,
  );
  const list = JSON.stringify(
    parked.map((p) => ({
      id: p.msg.id,
      run_id: p.msg.runId,
      mesh_id: p.msg.meshId,
      mesh_name: p.plan.mesh.name,
      member: p.memberId,
      member_label: p.plan.members.get(p.memberId)?.label ?? null,
      children: p.children,
      leaf: p.leaf ?? null,
    })),
  );
  // Decisions a re-park replaces (read before the upsert below overwrites them).
  const decided = await rows(
    tx,
    sql`select id, status, decided_by, decided_at, comment from approvals
         where id = any(${textArray(parked.map((p) => p.msg.id))}) and status <> ${approvalStatus('pending')} for update`,
    z.object({ id: z.string(), status: z.string(), decided_by: z.string().nullable(), decided_at: timestamp.nullable(), comment: z.string().nullable() }),
  );
  const previous = new Map(decided.map((d) => [d.id, d]));
  const fresh = await rows(
    tx,
    sql`insert into approvals (id, run_id, mesh_id, mesh_name, member, member_label, children, leaf)
        select id, run_id, mesh_id, mesh_name, member, member_label, children, leaf
          from json_to_recordset(${list}::json)
               as x(id text, run_id text, mesh_id text, mesh_name text, member text, member_label text, children jsonb, leaf jsonb)
        on conflict (id) do update
           set status = ${approvalStatus('pending')}, decided_by = null, decided_at = null, comment = null, created_at = now(),
               mesh_name = excluded.mesh_name, member_label = excluded.member_label,
               children = excluded.children, leaf = excluded.leaf
         where approvals.status <> ${approvalStatus('pending')}
        returning id, run_id, mesh_id, mesh_name, member, member_label`,
    z.object({ id: z.string(), run_id: z.string(), mesh_id: z.string(), mesh_name: z.string(), member: z.string(), member_label: z.string().nullable() }),
  );
  if (fresh.length === 0) return;
  const items = JSON.stringify(
    fresh.map((a) => {
      const prev = previous.get(a.id);
      return {
        id: approvalItemId(a.id), approval_id: a.id, run_id: a.run_id, mesh_id: a.mesh_id, mesh_name: a.mesh_name, member: a.member, member_label: a.member_label,
        action: prev ? 'reopened' : 'opened',
        detail: {
          approvalId: a.id,
          runId: a.run_id,
          ...(prev ? { previous: { status: prev.status, decidedBy: prev.decided_by, decidedAt: prev.decided_at, comment: prev.comment } } : {}),
        },
      };
    }),
  );
  await tx.execute(
    sql`with x as (select * from json_to_recordset(${items}::json)
                     as x(id text, approval_id text, run_id text, mesh_id text, mesh_name text, member text, member_label text, action text, detail jsonb)),
             i as (insert into action_items (id, kind, mesh_id, mesh_name, member, member_label, approval_id, run_count, detail)
                   select id, 'approval', mesh_id, mesh_name, member, member_label, approval_id, 1,
                          'its output waits for approval'
                     from x
                   on conflict (id) do update
                      set state = 'open', resolved_at = null, resolved_by = null, resolution = null,
                          last_seen = now(), updated_at = now()
                   returning id),
             r as (insert into action_item_runs (item_id, run_id) select id, run_id from x on conflict do nothing)
        insert into action_item_history (item_id, action, detail)
        select id, action, detail from x`,
  );
  await recordEvents(
    tx,
    fresh.flatMap((a) => [
      { kind: 'approval.changed' as const, runId: a.run_id, itemId: approvalItemId(a.id), meshId: a.mesh_id, status: 'pending' },
      { kind: 'item.changed' as const, itemId: approvalItemId(a.id), meshId: a.mesh_id, status: 'open' },
    ]),
  );
}
