/**
 * Who is calling a signed-in REST route or the live-updates stream, and may they: an API token
 * (`Authorization: Bearer trl_…`, checked by `authenticateToken`: live, owner's role and token
 * scope) or a browser session (checked by `authorize`: session version, disabled, role; plus the
 * Origin check, since a cookie rides along on cross-site requests and a bearer token does not).
 */
import type { Db } from '@trellis/db/client';
import { authenticateToken, isApiToken } from '@trellis/engine/tokens/authenticate-token';
import type { SignedInRule } from '@trellis/engine/users/roles';
import { authorize, type SessionClaims } from '@trellis/engine/users/session-user';
import type { SignedInUser } from '@trellis/engine/users/verify-credentials';
import { checkOrigin } from './origin';
import { bearer } from './read-request';

/**
 * The caller of `req` when allowed `rule`.
 * @throws NotSignedInError (401), AccessRefusedError / TokenScopeError / OriginRefusedError (403).
 */
export async function authorizeCaller(
  db: Db,
  req: Request,
  session: () => Promise<SessionClaims | null>,
  rule: SignedInRule,
  what: string,
): Promise<SignedInUser> {
  const token = bearer(req);
  if (isApiToken(token)) return authenticateToken(db, token, rule, what);
  checkOrigin(req);
  return authorize(db, await session(), rule, what);
}
