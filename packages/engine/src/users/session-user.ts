/**
 * The session check every request makes (tRPC, REST, SSE): the user a session names, read fresh from
 * the users row, or null when that session has ended. A session ends when the row's
 * `session_version` moved past the one it was issued with (sign-out, role change, password change,
 * disable) or when the user is disabled or removed.
 */
import { eq } from 'drizzle-orm';
import type { Db } from '@trellis/db/client';
import { users } from '@trellis/db/schema/users';
import { NotSignedInError, AccessRefusedError } from './errors';
import { roleAllows, type SignedInRule } from './roles';
import { toSignedIn, type SignedInUser } from './verify-credentials';

/** What a session token says about its user (next-auth JWT claims `uid` and `sv`). */
export interface SessionClaims {
  userId: string;
  sessionVersion: number;
}

/** The current user for `claims`, or null when the session has ended. One indexed read. */
export async function loadSessionUser(db: Db, claims: SessionClaims): Promise<SignedInUser | null> {
  const [row] = await db.select().from(users).where(eq(users.id, claims.userId)).limit(1);
  if (!row || row.disabledAt || row.sessionVersion !== claims.sessionVersion) return null;
  return toSignedIn(row);
}

/**
 * The one authorization check: the session's current user when their role allows `rule`.
 * @throws NotSignedInError (401) without a live session; AccessRefusedError (403) naming the rule.
 */
export async function authorize(db: Db, claims: SessionClaims | null, rule: SignedInRule, what?: string): Promise<SignedInUser> {
  const user = claims ? await loadSessionUser(db, claims) : null;
  if (!user) throw new NotSignedInError(claims ? 'your session has ended; sign in again' : 'sign in to continue');
  if (!roleAllows(user.role, rule)) throw new AccessRefusedError(rule, user.role, what);
  return user;
}
