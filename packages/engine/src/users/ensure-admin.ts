/**
 * First start: when nobody can sign in yet, create the first admin from the configured email and password.
 * Later starts change nothing, so a password changed since is never reset by a restart.
 */
import { randomBytes } from 'node:crypto';
import { count, eq } from 'drizzle-orm';
import type { Db } from '@trellis/db/client';
import { users } from '@trellis/db/schema/users';
import { appendAudit, SYSTEM_ACTOR } from '../audit/append';
import { uuidv7 } from '../kernel/ids';
import { hashPassword, verifyPassword } from './password';

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
  const passwordHash = await hashPassword(password);
  const inserted = await db.transaction(async (tx) => {
    const rows = await tx.insert(users).values({ id: uuidv7(), email, name: 'Administrator', passwordHash, role: 'admin' }).onConflictDoNothing().returning({ id: users.id });
    if (rows.length > 0) await appendAudit(tx, { actor: SYSTEM_ACTOR, action: 'user.add', target: email, detail: { role: 'admin', first: true } });
    return rows;
  });
  // A second process starting at the same moment may have won the race; that is fine.
  if (inserted.length === 0) return { created: false };
  return generated ? { created: true, email, generatedPassword: generated } : { created: true, email };
}

/**
 * True when `password` signs `email` in: the account exists, is not disabled by a `!` hash, and its
 * stored hash matches. `npm start` asks this of its generated password file, so that its banner
 * points at the file only when that password is the one in force (the admin may have been created
 * earlier from another TRELLIS_ADMIN_PASSWORD, or have changed it since).
 */
export async function passwordInForce(db: Db, email: string, password: string): Promise<boolean> {
  const [user] = await db.select({ passwordHash: users.passwordHash }).from(users).where(eq(users.email, email.trim().toLowerCase()));
  if (!user || user.passwordHash.startsWith('!')) return false;
  return verifyPassword(password, user.passwordHash);
}
