/**
 * Bearer-token auth for the HTTP bridges (MCP, A2A): the same API tokens and the same check as the
 * REST API (`Authorization: Bearer trl_…`, engine tokens/authenticate-token.ts).
 */
import type { Db } from '@trellis/db/client';
import { authenticateToken, isApiToken } from '@trellis/engine/tokens/authenticate-token';
import { NotSignedInError } from '@trellis/engine/users/errors';
import type { SignedInRule } from '@trellis/engine/users/roles';
import type { SignedInUser } from '@trellis/engine/users/verify-credentials';

/** The bearer value of `Authorization`, or undefined. */
export function bearerOf(req: Request): string | undefined {
  const header = req.headers.get('authorization') ?? '';
  const match = /^Bearer\s+(\S+)$/i.exec(header.trim());
  return match?.[1];
}

/**
 * The token's owner when the token allows `rule`.
 * @throws NotSignedInError (401) without a Trellis API token or for an unknown, revoked or expired
 *   one; AccessRefusedError / TokenScopeError (403) naming the rule.
 */
export async function tokenUser(db: Db, token: string | undefined, rule: SignedInRule, what: string): Promise<SignedInUser> {
  if (!isApiToken(token)) throw new NotSignedInError(`${what} needs an API token: send Authorization: Bearer trl_… (create one on the Tokens page)`);
  return authenticateToken(db, token, rule, what);
}
