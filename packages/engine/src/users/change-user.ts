/**
 * An admin changes a user: their role, disabled or enabled, or removes them. Each change but enabling
 * raises the session version, so the user's open sessions end at once. None may leave Trellis without
 * an active admin (the last-admin policy). Each is written to the audit trail in its transaction.
 */
import { randomBytes } from 'node:crypto';
import { eq, sql } from 'drizzle-orm';
import type { Db } from '@trellis/db/client';
import { users } from '@trellis/db/schema/users';
import { checkNewPassword } from './add-user';
import { appendAudit, SYSTEM_ACTOR, type AuditActor } from '../audit/append';
import { findUser } from './find-user';
import { hashPassword } from './password';
import { keepAnAdmin } from './last-admin';
import { parseRole, type Role } from './roles';

/** What a change did: the user's email and their role after it. */
export interface UserChange {
  id: string;
  email: string;
  role: Role;
}

/** Sets a user's role and ends their sessions. @throws UserNotFoundError, BadInputError, LastAdminError. */
export function setUserRole(db: Db, who: string, roleName: string, actor: AuditActor = SYSTEM_ACTOR): Promise<UserChange> {
  const role = parseRole(roleName);
  return db.transaction(async (tx) => {
    const row = await findUser(tx, who, true);
    if (row.role === 'admin' && role !== 'admin' && !row.disabledAt) await keepAnAdmin(tx, row.id, 'demote');
    await tx.update(users).set({ role, sessionVersion: sql`${users.sessionVersion} + 1` }).where(eq(users.id, row.id));
    await appendAudit(tx, { actor, action: 'user.role', target: row.email, detail: { from: row.role, to: role } });
    return { id: row.id, email: row.email, role };
  });
}

/** Disables (and ends the sessions of) or re-enables a user. @throws UserNotFoundError, LastAdminError. */
export function setUserDisabled(db: Db, who: string, disabled: boolean, actor: AuditActor = SYSTEM_ACTOR): Promise<UserChange> {
  return db.transaction(async (tx) => {
    const row = await findUser(tx, who, true);
    if (disabled && row.role === 'admin' && !row.disabledAt) await keepAnAdmin(tx, row.id, 'disable');
    const change = disabled
      ? { disabledAt: row.disabledAt ?? new Date(), sessionVersion: sql`${users.sessionVersion} + 1` }
      : { disabledAt: null };
    await tx.update(users).set(change).where(eq(users.id, row.id));
    await appendAudit(tx, { actor, action: disabled ? 'user.disable' : 'user.enable', target: row.email });
    return { id: row.id, email: row.email, role: parseRole(row.role) };
  });
}

/** Removes a user; their sessions end with the row. @throws UserNotFoundError, LastAdminError. */
export function removeUser(db: Db, who: string, actor: AuditActor = SYSTEM_ACTOR): Promise<UserChange> {
  return db.transaction(async (tx) => {
    const row = await findUser(tx, who, true);
    if (row.role === 'admin' && !row.disabledAt) await keepAnAdmin(tx, row.id, 'remove');
    await tx.delete(users).where(eq(users.id, row.id));
    await appendAudit(tx, { actor, action: 'user.remove', target: row.email, detail: { role: row.role } });
    return { id: row.id, email: row.email, role: parseRole(row.role) };
  });
}

/**
 * Sets a user's password (an admin's reset, e.g. from `trellis user password`) and ends their
 * sessions; without `password` one is generated and returned this once.
 * @throws UserNotFoundError, BadInputError for a short password.
 */
export async function resetPassword(db: Db, who: string, password?: string, actor: AuditActor = SYSTEM_ACTOR): Promise<UserChange & { password?: string }> {
  const generated = password ? undefined : randomBytes(12).toString('base64url');
  const next = password ?? generated ?? '';
  checkNewPassword(next);
  const passwordHash = await hashPassword(next);
  const row = await db.transaction(async (tx) => {
    const found = await findUser(tx, who, true);
    await tx.update(users).set({ passwordHash, sessionVersion: sql`${users.sessionVersion} + 1` }).where(eq(users.id, found.id));
    await appendAudit(tx, { actor, action: 'user.password_reset', target: found.email });
    return found;
  });
  const change = { id: row.id, email: row.email, role: parseRole(row.role) };
  return generated ? { ...change, password: generated } : change;
}
