/**
 * The keyed join (DESIGN.md §3), set-based for a batch of parts arriving at combine members.
 * Inside the caller's transaction:
 *  1. parts are inserted by message id (`on conflict do nothing`: a redelivered part counts once);
 *     a part's payload is not copied: the merge reads it from the part's message row;
 *  2. one upsert per key bumps `received` by the parts actually inserted. The upsert takes the row
 *     lock, so concurrent last parts queue behind each other and exactly one sees the set complete;
 *     rows are locked in key order so two batches cannot deadlock on them;
 *  3. complete keys whose `fired_at` is null are fired (set `fired_at`), and their parts are read
 *     back in `seq` order and merged.
 * A message with no frame fires alone; a void's count-0 frame fires once with the empty set.
 * A skipped part (routing dropped it upstream, process/route.ts) counts like an arrived one but is not
 * merged: a join whose every part was skipped fires once with the empty set.
 */
import { z } from 'zod';
import { sql } from 'drizzle-orm';
import type { CombineMember } from '@trellis/mesh/schema';
import type { Item } from '../plan/frames';
import { mergeParts } from '../members/combine/merge';
import { rows, type Queryable } from '../kernel/sql';
import type { Claimed } from './types';

const JoinKeyRow = z.object({ run_id: z.string(), member: z.string(), key: z.string() });
const InsertedPartRow = JoinKeyRow.extend({ skipped: z.boolean() });
const JoinStateRow = JoinKeyRow.extend({ expected: z.number(), received: z.number(), fired_at: z.unknown() });
const PartPayloadRow = JoinKeyRow.extend({ payload: z.unknown() });
const FiredKeyRow = JoinKeyRow.extend({ waited: z.coerce.number() });

/**
 * A join that fired: the message that completed it (for a join completed by a skipped part, the
 * message whose routing dropped that part, seen as arriving at the combine), its key and the merged output.
 */
export interface Fired {
  msg: Claimed;
  member: CombineMember;
  key: string;
  item: Item;
  /** Seconds from the join's first part to its firing (trellis_join_wait_seconds); absent for a combine that needs no join row. */
  waitedSeconds?: number;
}

/**
 * A part reaching a combine. `skip` marks a part that will never come: routing dropped it at the
 * member that sent `msg` (whose frames are the part's frames); `partId` is its `filtered` trail row.
 */
export interface Arrival {
  msg: Claimed;
  member: CombineMember;
  skip?: { partId: string } | undefined;
}

interface KeyState {
  runId: string;
  member: CombineMember;
  key: string;
  expected: number;
  /** Parts of this batch for the key (a void contributes none). */
  parts: { id: string; seq: number; skipped: boolean }[];
  /** The message whose commit fires the join, if it does: an arrived part when there is one. */
  last: Claimed;
  lastIsSkip: boolean;
}

const id3 = (run: string, member: string, key: string) => JSON.stringify([run, member, key]);

/** Processes the combine messages of a batch; returns the joins that fired, in input order. */
export async function runJoins(tx: Queryable, arrivals: readonly Arrival[]): Promise<Fired[]> {
  const fired: Fired[] = [];
  const keys = new Map<string, KeyState>();
  for (const { msg, member, skip } of arrivals) {
    const top = msg.frames[msg.frames.length - 1];
    if (!top) {
      // Not downstream of any split: a set of one, complete on arrival (a skip never comes without a frame).
      if (!skip) fired.push({ msg, member, key: msg.id, item: { payload: mergeParts(member, [msg.payload]), frames: [], void: false } });
      continue;
    }
    const k = id3(msg.runId, member.id, top.split);
    const state: KeyState = keys.get(k) ?? { runId: msg.runId, member, key: top.split, expected: top.count, parts: [], last: msg, lastIsSkip: skip !== undefined };
    if (skip) state.parts.push({ id: skip.partId, seq: top.index, skipped: true });
    else if (!msg.void) state.parts.push({ id: msg.id, seq: top.index, skipped: false });
    // An arrived part, when the batch has one, is the message the fired output hangs on.
    if (!skip || state.lastIsSkip) {
      state.last = msg;
      state.lastIsSkip = skip !== undefined;
    }
    keys.set(k, state);
  }
  if (keys.size === 0) return fired;

  const parts = [...keys.values()].flatMap((s) =>
    s.parts.map((p) => ({ run_id: s.runId, member: s.member.id, key: s.key, message_id: p.id, seq: p.seq, skipped: p.skipped })),
  );
  const inserted = new Map<string, { received: number; skipped: number }>();
  if (parts.length > 0) {
    const got = await rows(
      tx,
      // A part's payload is not stored twice: it lives on its message row, read back when the join fires.
    sql`insert into join_parts (run_id, member, key, message_id, seq, skipped)
          select run_id, member, key, message_id, seq, skipped
            from json_to_recordset(${JSON.stringify(parts)}::json)
                 as x(run_id text, member text, key text, message_id text, seq int, skipped boolean)
          on conflict do nothing
          returning run_id, member, key, skipped`,
      InsertedPartRow,
    );
    for (const r of got) {
      const k = id3(r.run_id, r.member, r.key);
      const n = inserted.get(k) ?? { received: 0, skipped: 0 };
      n.received++;
      if (r.skipped) n.skipped++;
      inserted.set(k, n);
    }
  }

  const upserts = [...keys.entries()].map(([k, s]) => ({
    run_id: s.runId,
    member: s.member.id,
    key: s.key,
    expected: s.expected,
    received: inserted.get(k)?.received ?? 0,
    skipped: inserted.get(k)?.skipped ?? 0,
  }));
  const states = await rows(
    tx,
    sql`insert into joins (run_id, member, key, expected, received, skipped)
        select run_id, member, key, expected, received, skipped
          from json_to_recordset(${JSON.stringify(upserts)}::json)
               as x(run_id text, member text, key text, expected int, received int, skipped int)
         order by run_id, member, key
        on conflict (run_id, member, key) do update
           set received = joins.received + excluded.received, skipped = joins.skipped + excluded.skipped
        returning run_id, member, key, expected, received, fired_at`,
    JoinStateRow,
  );
  const due = states.filter((r) => r.fired_at === null && r.received >= r.expected).map(({ run_id, member, key }) => ({ run_id, member, key }));
  if (due.length === 0) return fired;
  // The rows are locked by the upsert until commit, so `fired_at is null` here cannot race.
  const complete = await rows(
    tx,
    sql`update joins j set fired_at = now()
          from json_to_recordset(${JSON.stringify(due)}::json) as x(run_id text, member text, key text)
         where j.run_id = x.run_id and j.member = x.member and j.key = x.key and j.fired_at is null
        returning j.run_id, j.member, j.key, extract(epoch from now() - j.created_at) as waited`,
    FiredKeyRow,
  );
  if (complete.length === 0) return fired;

  const payloads = new Map<string, unknown[]>();
  const withParts = complete.filter((c) => (keys.get(id3(c.run_id, c.member, c.key))?.expected ?? 0) > 0);
  if (withParts.length > 0) {
    const got = await rows(
      tx,
      sql`select p.run_id, p.member, p.key, coalesce(p.payload, m.payload) as payload
            from join_parts p
            join json_to_recordset(${JSON.stringify(withParts)}::json) as x(run_id text, member text, key text)
              on p.run_id = x.run_id and p.member = x.member and p.key = x.key
            left join messages m on m.id = p.message_id and p.payload is null
           where not p.skipped
           order by p.run_id, p.member, p.key, p.seq`,
      PartPayloadRow,
    );
    for (const r of got) {
      const k = id3(r.run_id, r.member, r.key);
      const list = payloads.get(k);
      if (list) list.push(r.payload);
      else payloads.set(k, [r.payload]);
    }
  }
  for (const c of complete) {
    const k = id3(c.run_id, c.member, c.key);
    const s = keys.get(k);
    if (!s) continue;
    const payload = mergeParts(s.member, payloads.get(k) ?? []);
    fired.push({ msg: s.last, member: s.member, key: s.key, item: { payload, frames: s.last.frames.slice(0, -1), void: false }, waitedSeconds: Math.max(0, c.waited) });
  }
  return fired;
}
