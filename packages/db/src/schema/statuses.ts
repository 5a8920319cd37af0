/**
 * The statuses the engine writes, one union per table: the Drizzle columns carry them (`$type<>()`),
 * so a typo in a typed query does not compile. The columns stay `text` (no migration).
 */

/** `messages.status` (see messages.ts for their meaning). */
export const MESSAGE_STATUSES = ['pending', 'running', 'done', 'dead', 'lost', 'parked', 'cancelled', 'filtered'] as const;
/** One message status. */
export type MessageStatus = (typeof MESSAGE_STATUSES)[number];

/** `runs.status` (see runs.ts). */
export const RUN_STATUSES = ['queued', 'running', 'done', 'failed', 'stalled', 'cancelled'] as const;
/** One run status. */
export type RunStatus = (typeof RUN_STATUSES)[number];

/** `service_jobs.status` (see services.ts). */
export const SERVICE_JOB_STATUSES = ['waiting', 'claimed', 'done', 'failed', 'expired'] as const;
/** One service job status. */
export type ServiceJobStatus = (typeof SERVICE_JOB_STATUSES)[number];

/** `approvals.status` (see approvals.ts): waiting for a person, decided, or cancelled with its run. */
export const APPROVAL_STATUSES = ['pending', 'approved', 'rejected', 'cancelled'] as const;
/** One approval status. */
export type ApprovalStatus = (typeof APPROVAL_STATUSES)[number];

/** True when `s` is a run status (a filter from a request may name anything). */
export function isRunStatus(s: string): s is RunStatus {
  return (RUN_STATUSES as readonly string[]).includes(s);
}

/** True when `s` is a message status. */
export function isMessageStatus(s: string): s is MessageStatus {
  return (MESSAGE_STATUSES as readonly string[]).includes(s);
}
