/**
 * Writing to the audit trail, inside the caller's transaction so the entry exists exactly when the
 * action does. A transaction-scoped advisory lock orders writers, so the chain has one next entry.
 */
import { desc, eq, sql } from 'drizzle-orm';
import type { Db } from '@trellis/db/client';
import { auditLog } from '@trellis/db/schema/audit-log';
import { users } from '@trellis/db/schema/users';
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

/**
 * Appends an entry whose actor is the user `userId`, read in the same transaction; Trellis itself
 * (the system actor) when there is none or it names no user (`cli`, `test`), kept as `detail.by`.
 * @returns the entry's sequence number.
 */
export async function appendAuditBy(tx: AuditWriter, userId: string | null | undefined, entry: Omit<AuditEntryInput, 'actor'>): Promise<number> {
  const [user] = userId ? await tx.select({ id: users.id, email: users.email }).from(users).where(eq(users.id, userId)).limit(1) : [];
  const detail = !user && userId ? { ...entry.detail, by: userId } : entry.detail;
  return appendAudit(tx, { ...entry, actor: user ? actorOf(user) : SYSTEM_ACTOR, ...(detail ? { detail } : {}) });
}
