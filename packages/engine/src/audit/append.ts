/**
 * Writing to the audit trail, inside the caller's transaction so the entry exists exactly when the
 * action does. A transaction-scoped advisory lock orders writers, so the chain has one next entry.
 */
import { desc, sql } from 'drizzle-orm';
import type { Db } from '@trellis/db/client';
import { auditLog } from '@trellis/db/schema/audit-log';
import { entryHash, GENESIS_HASH, type AuditFields } from './chain';

/** A database or a transaction handle (the entry commits or rolls back with it). */
export type AuditWriter = Db | Parameters<Parameters<Db['transaction']>[0]>[0];

/** Who did it; null fields for the system or an unknown caller. */
export interface AuditActor {
  id: string | null;
  email: string | null;
}

/** One privileged action to record. */
export interface AuditEntryInput {
  actor: AuditActor;
  action: string;
  target?: string | null;
  detail?: Record<string, unknown>;
}

// Any constant: the same in every process that writes the trail.
const AUDIT_LOCK = 7_417_012;

/**
 * Appends one entry. Call it with the transaction of the action it records.
 * @returns the entry's sequence number.
 */
export async function appendAudit(tx: AuditWriter, input: AuditEntryInput): Promise<number> {
  await tx.execute(sql`select pg_advisory_xact_lock(${AUDIT_LOCK})`);
  const [last] = await tx.select({ seq: auditLog.seq, hash: auditLog.hash }).from(auditLog).orderBy(desc(auditLog.seq)).limit(1);
  // Stored with millisecond precision, so the sealed time reads back exactly.
  const fields: AuditFields = {
    seq: (last?.seq ?? 0) + 1,
    at: new Date(),
    actorId: input.actor.id,
    actorEmail: input.actor.email,
    action: input.action,
    target: input.target ?? null,
    detail: input.detail ?? {},
  };
  const prevHash = last?.hash ?? GENESIS_HASH;
  await tx.insert(auditLog).values({ ...fields, prevHash, hash: entryHash(prevHash, fields) });
  return fields.seq;
}

/** Appends in a transaction of its own (for actions that are themselves one statement). */
export function recordAudit(db: Db, input: AuditEntryInput): Promise<number> {
  return db.transaction((tx) => appendAudit(tx, input));
}

/** The actor of changes made by Trellis itself or from the server's shell (`trellis user …`). */
export const SYSTEM_ACTOR: AuditActor = { id: null, email: null };

/** The actor for a signed-in user. */
export function actorOf(user: { id: string; email: string }): AuditActor {
  return { id: user.id, email: user.email };
}
