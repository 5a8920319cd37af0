/** Sign-in check: the user for an email and password, or null, taking the same time whether or not the email exists. */
import { eq } from 'drizzle-orm';
import type { Db } from '@trellis/db/client';
import { users } from '@trellis/db/schema/users';
import { verifyPassword } from './password';

/** What a signed-in session carries about its user. */
export interface SignedInUser {
  id: string;
  email: string;
  name: string;
  role: 'admin' | 'member';
}

// Compared against when the email is unknown, so a wrong email costs as much as a wrong password.
const DECOY_HASH = `scrypt$${'0'.repeat(32)}$${'0'.repeat(128)}`;

/** Returns the user when `password` is theirs, else null. */
export async function verifyCredentials(
  db: Db,
  input: { email: string; password: string },
): Promise<SignedInUser | null> {
  const email = input.email.trim().toLowerCase();
  const [user] = await db.select().from(users).where(eq(users.email, email)).limit(1);
  const ok = await verifyPassword(input.password, user?.passwordHash ?? DECOY_HASH);
  if (!user || !ok) return null;
  return { id: user.id, email: user.email, name: user.name, role: user.role === 'admin' ? 'admin' : 'member' };
}
