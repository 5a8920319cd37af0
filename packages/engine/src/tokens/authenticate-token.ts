/**
 * The bearer-token side of the one access check: the owner a token acts for, when the token is
 * live (not revoked, not expired, owner not disabled), the owner's role allows the rule and the
 * token's scope covers it. Records the last use (at most once a minute per token, so a busy script
 * does not write on every request).
 */
import { and, eq, isNull, lt, or } from 'drizzle-orm';
import type { Db } from '@trellis/db/client';
import { apiTokens } from '@trellis/db/schema/api-tokens';
import { users } from '@trellis/db/schema/users';
import { AccessRefusedError, NotSignedInError } from '../users/errors';
import { roleAllows, type SignedInRule } from '../users/roles';
import { toSignedIn, type SignedInUser } from '../users/verify-credentials';
import { hashToken } from './create-token';
import { TokenScopeError } from './errors';
import { SCOPE_FOR_RULE, scopeIncludes, type Scope } from './scopes';

/** True for a string shaped like one of our API tokens (other bearer keys are services' keys). */
export function isApiToken(value: string | undefined): value is string {
  return value?.startsWith('trl_') === true;
}

/**
 * @throws NotSignedInError (401) for an unknown, revoked or expired token or a disabled owner;
 *   AccessRefusedError (403) naming the rule when the role or the scope does not allow it.
 */
export async function authenticateToken(db: Db, token: string, rule: SignedInRule, what?: string): Promise<SignedInUser> {
  const [row] = await db
    .select({ t: apiTokens, u: users })
    .from(apiTokens)
    .innerJoin(users, eq(users.id, apiTokens.userId))
    .where(eq(apiTokens.tokenHash, hashToken(token)))
    .limit(1);
  const now = new Date();
  if (!row || row.t.revokedAt || (row.t.expiresAt && row.t.expiresAt <= now) || row.u.disabledAt) {
    throw new NotSignedInError('the API token is unknown, revoked or expired');
  }
  const user = toSignedIn(row.u);
  if (!roleAllows(user.role, rule)) throw new AccessRefusedError(rule, user.role, what);
  const scope = row.t.scope as Scope;
  if (!scopeIncludes(scope, SCOPE_FOR_RULE[rule])) {
    throw new TokenScopeError(what ?? 'this', SCOPE_FOR_RULE[rule], scope);
  }
  await db
    .update(apiTokens)
    .set({ lastUsedAt: now })
    .where(and(eq(apiTokens.id, row.t.id), or(isNull(apiTokens.lastUsedAt), lt(apiTokens.lastUsedAt, new Date(now.getTime() - 60_000)))));
  return user;
}
