/** Sign-in check: the user for an email and password, or null, taking the same time whether or not the email exists. */
import { eq } from 'drizzle-orm';
import type { Db } from '@trellis/db/client';
import { users } from '@trellis/db/schema/users';
import { verifyPassword } from './password';
import { parseRole, type Role } from './roles';

/** What a signed-in session carries about its user. `sessionVersion` is the user row's at sign-in. */
export interface SignedInUser {
  id: string;
  email: string;
  name: string;
  role: Role;
  sessionVersion: number;
}

/** A users row as a {@link SignedInUser}. */
export function toSignedIn(row: typeof users.$inferSelect): SignedInUser {
  return { id: row.id, email: row.email, name: row.name, role: parseRole(row.role), sessionVersion: row.sessionVersion };
}

// Compared against when the email is unknown, so a wrong email costs as much as a wrong password.
const DECOY_HASH = `scrypt$${'0'.repeat(32)}$${'0'.repeat(128)}`;

/** Returns the user when `password` is theirs and they are not disabled, else null. */
export async function verifyCredentials(
  db: Db,
  input: { email: string; password: string },
): Promise<SignedInUser | null> {
  const email = input.email.trim().toLowerCase();
  const [user] = await db.select().from(users).where(eq(users.email, email)).limit(1);
  const ok = await verifyPassword(input.password, user?.passwordHash ?? DECOY_HASH);
  if (!user || !ok || user.disabledAt || user.kind !== 'person') return null;
  return toSignedIn(user);
}
