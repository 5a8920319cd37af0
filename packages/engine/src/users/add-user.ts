/**
 * An admin adds a person: email, name, role and a password. Without a password one is generated and
 * returned this once, for the admin to hand over (an invitation); only its hash is stored.
 */
import { randomBytes } from 'node:crypto';
import type { Db } from '@trellis/db/client';
import { users } from '@trellis/db/schema/users';
import { BadInputError } from '../kernel/errors';
import { appendAudit, SYSTEM_ACTOR, type AuditActor } from '../audit/append';
import { uuidv7 } from '../kernel/ids';
import { UserExistsError } from './errors';
import { hashPassword } from './password';
import { parseRole, type Role } from './roles';

/** Shortest password accepted anywhere (added users and changed passwords). */
export const MIN_PASSWORD_LENGTH = 10;

/** What {@link addUser} needs. */
export interface AddUserInput {
  email: string;
  name?: string | undefined;
  /** A role name, checked here (`parseRole`). */
  role: string;
  password?: string | undefined;
}

/** The added user; `password` only when it was generated. */
export interface AddedUser {
  id: string;
  email: string;
  role: Role;
  password?: string;
}

/** Checks a new password. @throws BadInputError naming `field`. */
export function checkNewPassword(password: string, field = 'password'): void {
  if (password.length < MIN_PASSWORD_LENGTH) throw new BadInputError(`${field}: expected at least ${MIN_PASSWORD_LENGTH} characters`);
}

/** Adds a user (audited as `user.add`). @throws BadInputError for a bad email, role or password; UserExistsError. */
export async function addUser(db: Db, input: AddUserInput, actor: AuditActor = SYSTEM_ACTOR): Promise<AddedUser> {
  const email = input.email.trim().toLowerCase();
  if (!/^[^\s@]+@[^\s@]+$/.test(email)) throw new BadInputError(`email: ${JSON.stringify(input.email)} is not an email address`);
  const role = parseRole(input.role);
  const generated = input.password ? undefined : randomBytes(12).toString('base64url');
  const password = input.password ?? generated ?? '';
  checkNewPassword(password);
  const id = uuidv7();
  const name = input.name?.trim() || email.split('@')[0] || email;
  const passwordHash = await hashPassword(password);
  await db.transaction(async (tx) => {
    const inserted = await tx.insert(users).values({ id, email, name, role, passwordHash }).onConflictDoNothing().returning({ id: users.id });
    if (inserted.length === 0) throw new UserExistsError(email);
    await appendAudit(tx, { actor, action: 'user.add', target: email, detail: { role, invited: Boolean(generated) } });
  });
  return generated ? { id, email, role, password: generated } : { id, email, role };
}
