import { sql } from 'drizzle-orm';
import type { Queryable } from '../src/kernel/sql';
import { runJoins, type Arrival, type Fired } from '../src/process/join';

/**
 * The parts' message rows, as the commit that sent them wrote them (a join reads a part's payload
 * from its row, process/join.ts), then the join. Rows already there are kept.
 */
export async function arrive(tx: Queryable, arrivals: Arrival[]): Promise<Fired[]> {
  const list = arrivals.map(({ msg }) => ({ id: msg.id, run_id: msg.runId, member: msg.member, seq: msg.seq, payload: msg.payload, void: msg.void }));
  await tx.execute(sql`insert into messages (id, run_id, member, seq, payload, void)
    select id, run_id, member, seq, payload, void from json_to_recordset(${JSON.stringify(list)}::json)
      as x(id text, run_id text, member text, seq int, payload jsonb, void boolean)
    on conflict (id) do nothing`);
  return runJoins(tx, arrivals);
}
