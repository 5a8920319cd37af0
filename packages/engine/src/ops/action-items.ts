/**
 * Use cases of the Action Center: list the items (failure groups and approval requests) with the
 * runs they cover and their history, and act on them: acknowledge, assign, note a re-open, resolve
 * with a comment. Every action is recorded in `action_item_history` (who, when, what).
 */
import { z } from 'zod';
import { sql } from 'drizzle-orm';
import { causeInfo, causeSentence, isCause, type CauseSeverity } from '@trellis/mesh/causes';
import type { Db } from '@trellis/db/client';
import { appendAuditBy } from '../audit/append';
import { recordEvents } from '../events/outbox';
import { rows } from '../kernel/sql';
import { ActionNotFoundError, ActionRefusedError } from './errors';
import { runStatuses } from '../kernel/statuses';

/** A run an item covers, as it stands now. */
export interface ItemRun {
  id: string;
  status: string;
  cause: string | null;
  inputName: string | null;
  addedAt: Date;
}

/** One recorded change. `actor` is null for the engine. */
export interface ItemHistoryEntry {
  action: string;
  actor: string | null;
  actorName: string | null;
  detail: unknown;
  at: Date;
}

/** An Action Center item as shown. */
export interface ActionItemView {
  id: string;
  kind: 'failure' | 'approval';
  meshId: string;
  meshName: string;
  /** The group's cause (failure items); null for approvals. */
  cause: string | null;
  severity: CauseSeverity | null;
  whoActs: string;
  /** One plain sentence naming the member and the detail. */
  sentence: string;
  member: string | null;
  state: 'open' | 'acknowledged' | 'resolved';
  assignee: { id: string; name: string } | null;
  runCount: number;
  /** Runs of the item still failed or stalled (a re-opened run that ended done no longer counts). */
  stillFailing: number;
  firstSeen: Date;
  lastSeen: Date;
  resolvedAt: Date | null;
  resolution: string | null;
  approval: { id: string; status: string; runId: string; preview: unknown; messages: number; decidedBy: string | null; decidedAt: Date | null; comment: string | null } | null;
  /** The newest 50 runs it covers. */
  runs: ItemRun[];
  history: ItemHistoryEntry[];
}

/** Filters for {@link listActionItems}: `active` = open or acknowledged (the default). */
export interface ListActionItemsInput {
  state?: 'active' | 'resolved' | 'all';
  kind?: 'failure' | 'approval';
  limit?: number;
}

const text = z.string();
const ItemRow = z.object({
  id: text, kind: z.enum(['failure', 'approval']), mesh_id: text, mesh_name: text, cause: text.nullable(), member: text.nullable(),
  member_label: text.nullable(), detail: text.nullable(), state: z.custom<ActionItemView['state']>((v) => typeof v === 'string', 'expected an item state'),
  assignee: text.nullable(), assignee_name: text.nullable(),
  run_count: z.number(), still_failing: z.number(), first_seen: z.coerce.date(), last_seen: z.coerce.date(), resolved_at: z.coerce.date().nullable(), resolution: text.nullable(),
  approval_id: text.nullable(), a_status: text.nullable(), a_run: text.nullable(),
  a_children: z.array(z.object({ payload: z.unknown() })).nullable(), a_leaf: z.object({ value: z.unknown() }).nullable(),
  a_by: text.nullable(), a_at: z.coerce.date().nullable(), a_comment: text.nullable(),
});

const asDate = (v: Date | string): Date => (v instanceof Date ? v : new Date(v));

/** Items, most recently seen first (at most `limit`, default 100), each with its runs and history. */
export async function listActionItems(db: Db, input: ListActionItemsInput = {}): Promise<ActionItemView[]> {
  const state = input.state ?? 'active';
  const limit = Math.min(Math.max(input.limit ?? 100, 1), 500);
  const items = await rows(
    db,
    sql`select i.id, i.kind, i.mesh_id, i.mesh_name, i.cause, i.member, i.member_label, i.detail, i.state, i.assignee,
               u.name as assignee_name, i.run_count, i.first_seen, i.last_seen, i.resolved_at, i.resolution, i.approval_id,
               (select count(*)::int from action_item_runs ir join runs r on r.id = ir.run_id
                 where ir.item_id = i.id and r.status in ${runStatuses('failed', 'stalled')}) as still_failing,
               a.status as a_status, a.run_id as a_run, a.children as a_children, a.leaf as a_leaf,
               du.name as a_by, a.decided_at as a_at, a.comment as a_comment
          from action_items i
          left join users u on u.id = i.assignee
          left join approvals a on a.id = i.approval_id
          left join users du on du.id = a.decided_by
         where (${state} = 'all' or (${state} = 'active' and i.state <> 'resolved') or (${state} = 'resolved' and i.state = 'resolved'))
           and (${input.kind ?? null}::text is null or i.kind = ${input.kind ?? null})
         order by i.last_seen desc, i.id
         limit ${limit}`,
    ItemRow,
  );
  if (items.length === 0) return [];
  const ids = items.map((i) => i.id);
  const idList = `{${ids.map((id) => `"${id}"`).join(',')}}`;
  const runRows = await rows(
    db,
    sql`select x.item_id, r.id, r.status, r.cause, r.input_name, x.added_at
          from unnest(${idList}::text[]) as i(id)
          cross join lateral (select item_id, run_id, added_at from action_item_runs where item_id = i.id order by added_at desc limit 50) x
          join runs r on r.id = x.run_id`,
    z.object({ item_id: z.string(), id: z.string(), status: z.string(), cause: z.string().nullable(), input_name: z.string().nullable(), added_at: z.coerce.date() }),
  );
  const historyRows = await rows(
    db,
    sql`select h.item_id, h.action, h.actor, u.name as actor_name, h.detail, h.at
          from action_item_history h left join users u on u.id = h.actor
         where h.item_id = any(${idList}::text[]) and h.action <> 'run_added'
         order by h.id`,
    z.object({ item_id: z.string(), action: z.string(), actor: z.string().nullable(), actor_name: z.string().nullable(), detail: z.unknown(), at: z.coerce.date() }),
  );
  return items.map((i) => {
    const cause = i.cause !== null && isCause(i.cause) ? i.cause : null;
    const info = cause ? causeInfo(cause) : null;
    const where = i.member_label ?? i.member ?? undefined;
    const sentence = cause
      ? causeSentence({ cause, ...(where ? { member: where } : {}), ...(i.detail ? { detail: i.detail } : {}), runs: i.run_count })
      : `The output of ${where ?? 'a member'} in ${i.mesh_name} waits for approval.`;
    const children = i.a_children ?? [];
    return {
      id: i.id,
      kind: i.kind,
      meshId: i.mesh_id,
      meshName: i.mesh_name,
      cause,
      severity: info?.severity ?? null,
      whoActs: info?.whoActs ?? 'a person who may approve',
      sentence,
      member: i.member,
      state: i.state,
      assignee: i.assignee ? { id: i.assignee, name: i.assignee_name ?? i.assignee } : null,
      runCount: i.run_count,
      stillFailing: i.still_failing,
      firstSeen: asDate(i.first_seen),
      lastSeen: asDate(i.last_seen),
      resolvedAt: i.resolved_at ? asDate(i.resolved_at) : null,
      resolution: i.resolution,
      approval:
        i.approval_id && i.a_status && i.a_run
          ? {
              id: i.approval_id,
              status: i.a_status,
              runId: i.a_run,
              preview: i.a_leaf ? i.a_leaf.value : children.slice(0, 3).map((c) => c.payload),
              messages: children.length,
              decidedBy: i.a_by,
              decidedAt: i.a_at ? asDate(i.a_at) : null,
              comment: i.a_comment,
            }
          : null,
      runs: runRows.filter((r) => r.item_id === i.id).map((r) => ({ id: r.id, status: r.status, cause: r.cause, inputName: r.input_name, addedAt: asDate(r.added_at) })),
      history: historyRows.filter((h) => h.item_id === i.id).map((h) => ({ action: h.action, actor: h.actor, actorName: h.actor_name, detail: h.detail, at: asDate(h.at) })),
    };
  });
}

/** An action a person takes on an item. `reopened` records a re-open done through `runs.reopen`. */
export type ItemAction =
  | { action: 'acknowledge' }
  | { action: 'assign'; assignee: string }
  | { action: 'resolve'; comment: string }
  | { action: 'reopened'; runIds: string[] };

/**
 * Applies an action to an item and records it (who, when, what) with a live-update event.
 * @throws ActionNotFoundError (no item, or no assignee user); ActionRefusedError when the item is
 *   resolved already, an approval item is resolved by hand, or a resolve comes without a comment.
 */
export async function actOnItem(db: Db, input: { itemId: string; userId: string } & ItemAction): Promise<{ id: string; state: string }> {
  const [item] = await rows(db, sql`select id, kind, state, mesh_id from action_items where id = ${input.itemId}`, z.object({ id: z.string(), kind: z.string(), state: z.string(), mesh_id: z.string() }));
  if (!item) throw new ActionNotFoundError(`action item ${input.itemId}`);
  if (item.state === 'resolved') throw new ActionRefusedError('this item is resolved already');
  let detail: Record<string, unknown> = {};
  let change;
  switch (input.action) {
    case 'acknowledge':
      change = sql`state = 'acknowledged'`;
      break;
    case 'assign': {
      const [u] = await rows(db, sql`select id, name from users where id = ${input.assignee}`, z.object({ id: z.string(), name: z.string() }));
      if (!u) throw new ActionNotFoundError(`user ${input.assignee} (assignee)`);
      change = sql`assignee = ${u.id}`;
      detail = { assignee: u.id, name: u.name };
      break;
    }
    case 'resolve': {
      const comment = input.comment.trim();
      if (comment === '') throw new ActionRefusedError('comment: say how it was resolved');
      if (item.kind === 'approval') throw new ActionRefusedError('an approval is resolved by approving or rejecting it');
      change = sql`state = 'resolved', resolved_at = now(), resolved_by = ${input.userId}, resolution = ${comment}`;
      detail = { comment };
      break;
    }
    case 'reopened':
      if (input.runIds.length === 0) throw new ActionRefusedError('runIds: name at least one re-opened run');
      change = sql`state = 'acknowledged'`;
      detail = { runIds: input.runIds };
      break;
  }
  return db.transaction(async (tx) => {
    const [after] = await rows(
      tx,
      sql`update action_items set ${change}, updated_at = now() where id = ${item.id} and state <> 'resolved' returning id, state`,
      z.object({ id: z.string(), state: z.string() }),
    );
    if (!after) throw new ActionRefusedError('this item is resolved already');
    const action = { acknowledge: 'acknowledged', assign: 'assigned', resolve: 'resolved', reopened: 'reopened' }[input.action];
    await tx.execute(
      sql`insert into action_item_history (item_id, action, actor, detail) values (${item.id}, ${action}, ${input.userId}, ${JSON.stringify(detail)}::jsonb)`,
    );
    await appendAuditBy(tx, input.userId, { action: `action_item.${input.action}`, target: item.id, detail });
    await recordEvents(tx, [{ kind: 'item.changed', itemId: item.id, meshId: item.mesh_id, status: after.state }]);
    return after;
  });
}
