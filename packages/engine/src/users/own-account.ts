/** What a person does to their own account: change their password, sign out everywhere. */
import { eq, sql } from 'drizzle-orm';
import type { Db } from '@trellis/db/client';
import { users } from '@trellis/db/schema/users';
import { BadInputError } from '../kernel/errors';
import { checkNewPassword } from './add-user';
import { appendAudit } from '../audit/append';
import { findUser } from './find-user';
import { hashPassword, verifyPassword } from './password';

/**
 * Changes the user's password when `current` is right, and ends all their sessions (this one too:
 * they sign in again with the new password).
 * @throws BadInputError naming `current` or `password`.
 */
export async function changePassword(db: Db, userId: string, input: { current: string; password: string }): Promise<void> {
  checkNewPassword(input.password);
  const row = await findUser(db, userId);
  if (!(await verifyPassword(input.current, row.passwordHash))) throw new BadInputError('current: that is not your current password');
  const passwordHash = await hashPassword(input.password);
  await db.transaction(async (tx) => {
    await tx.update(users).set({ passwordHash, sessionVersion: sql`${users.sessionVersion} + 1` }).where(eq(users.id, row.id));
    await appendAudit(tx, { actor: { id: row.id, email: row.email }, action: 'user.password_change', target: row.email });
  });
}

/** Ends every session of the user (signing out ends them all: one version per user). */
export async function endSessions(db: Db, userId: string): Promise<void> {
  await db.transaction(async (tx) => {
    const [row] = await tx.update(users).set({ sessionVersion: sql`${users.sessionVersion} + 1` }).where(eq(users.id, userId)).returning({ email: users.email });
    if (row) await appendAudit(tx, { actor: { id: userId, email: row.email }, action: 'sign_out', target: row.email });
  });
}
