/**
 * First start: when nobody can sign in yet, create the first admin from the configured email and password.
 * Later starts change nothing, so a password changed since is never reset by a restart.
 */
import { randomBytes } from 'node:crypto';
import { count } from 'drizzle-orm';
import type { Db } from '@trellis/db/client';
import { users } from '@trellis/db/schema/users';
import { uuidv7 } from '../kernel/ids';
import { hashPassword } from './password';

export interface EnsureAdminInput {
  /** TRELLIS_ADMIN_EMAIL; `admin@trellis.local` when unset. */
  email?: string | undefined;
  /** TRELLIS_ADMIN_PASSWORD; when unset a random one is generated and returned once. */
  password?: string | undefined;
}

export type EnsureAdminResult =
  | { created: false }
  | { created: true; email: string; /** Set only when it was generated, so the caller can show it once. */ generatedPassword?: string };

/** Creates the first admin when the users table is empty; otherwise does nothing. */
export async function ensureAdmin(db: Db, input: EnsureAdminInput = {}): Promise<EnsureAdminResult> {
  const [row] = await db.select({ n: count() }).from(users);
  if ((row?.n ?? 0) > 0) return { created: false };
  const email = (input.email ?? 'admin@trellis.local').trim().toLowerCase();
  const generated = input.password ? undefined : randomBytes(12).toString('base64url');
  const password = input.password ?? generated ?? '';
  const inserted = await db
    .insert(users)
    .values({ id: uuidv7(), email, name: 'Administrator', passwordHash: await hashPassword(password), role: 'admin' })
    .onConflictDoNothing()
    .returning({ id: users.id });
  // A second process starting at the same moment may have won the race; that is fine.
  if (inserted.length === 0) return { created: false };
  return generated ? { created: true, email, generatedPassword: generated } : { created: true, email };
}
