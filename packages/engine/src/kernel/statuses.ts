/**
 * Statuses inside raw SQL, taken from the one union per table (@trellis/db/schema/statuses): a
 * misspelt or foreign status does not compile (`Argument of type '"pendng"' is not assignable to
 * parameter of type 'MessageStatus'`). Each helper yields a SQL string literal, not a bound
 * parameter, so the query text (and the partial indexes it matches) stays what it was.
 */
import { sql, type SQL } from 'drizzle-orm';
import {
  APPROVAL_STATUSES,
  MESSAGE_STATUSES,
  RUN_STATUSES,
  SERVICE_JOB_STATUSES,
  type ApprovalStatus,
  type MessageStatus,
  type RunStatus,
  type ServiceJobStatus,
} from '@trellis/db/schema/statuses';

function literals<S extends string>(table: string, known: readonly S[]) {
  const set = new Set<string>(known);
  const one = (s: S): SQL => {
    // The compiler checks callers; this guards a value that came through a cast.
    if (!set.has(s)) throw new Error(`${JSON.stringify(s)} is not a ${table} status (expected one of ${known.join(', ')})`);
    return sql.raw(`'${s}'`);
  };
  /** The list `('a', 'b')` for `status in …`. */
  const list = (...statuses: [S, ...S[]]): SQL => sql.join([sql.raw('('), sql.join(statuses.map(one), sql.raw(', ')), sql.raw(')')]);
  return { one, list };
}

const message = literals<MessageStatus>('message', MESSAGE_STATUSES);
const run = literals<RunStatus>('run', RUN_STATUSES);
const job = literals<ServiceJobStatus>('service job', SERVICE_JOB_STATUSES);
const approval = literals<ApprovalStatus>('approval', APPROVAL_STATUSES);

/** A message status as a SQL literal: sql`status = ${msgStatus('done')}`. @throws Error for a value outside the union. */
export const msgStatus = message.one;
/** Message statuses as a SQL list: sql`status in ${msgStatuses('pending', 'running')}`. */
export const msgStatuses = message.list;
/** A run status as a SQL literal. */
export const runStatus = run.one;
/** Run statuses as a SQL list. */
export const runStatuses = run.list;
/** A service job status as a SQL literal. */
export const jobStatus = job.one;
/** Service job statuses as a SQL list. */
export const jobStatuses = job.list;
/** An approval status as a SQL literal. */
export const approvalStatus = approval.one;
