/** Listing and revoking API tokens: a person sees and revokes their own; an admin, everyone's. */
import { and, desc, eq, isNull } from 'drizzle-orm';
import type { Db } from '@trellis/db/client';
import { apiTokens } from '@trellis/db/schema/api-tokens';
import { users } from '@trellis/db/schema/users';
import { appendAudit } from '../audit/append';
import type { Role } from '../users/roles';
import { TokenNotFoundError } from './errors';
import type { Scope } from './scopes';

/** A token as people see it (never the token or its hash). */
export interface TokenView {
  id: string;
  name: string;
  prefix: string;
  scope: Scope;
  owner: string;
  ownerKind: 'person' | 'service';
  expiresAt: Date | null;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
  createdAt: Date;
}

/** The caller's tokens, or with `all` (admins) everyone's; newest first. */
export async function listTokens(db: Db, caller: { id: string; role: Role }, all = false): Promise<TokenView[]> {
  const rows = await db
    .select({ t: apiTokens, owner: users.email, kind: users.kind })
    .from(apiTokens)
    .innerJoin(users, eq(users.id, apiTokens.userId))
    .where(all && caller.role === 'admin' ? undefined : eq(apiTokens.userId, caller.id))
    .orderBy(desc(apiTokens.createdAt));
  return rows.map(({ t, owner, kind }) => ({
    id: t.id,
    name: t.name,
    prefix: t.prefix,
    scope: t.scope as Scope,
    owner,
    ownerKind: kind === 'service' ? 'service' : 'person',
    expiresAt: t.expiresAt,
    lastUsedAt: t.lastUsedAt,
    revokedAt: t.revokedAt,
    createdAt: t.createdAt,
  }));
}

/** Revokes a token of the caller's (any token, for an admin); it stops working at once. @throws TokenNotFoundError. */
export async function revokeToken(db: Db, caller: { id: string; email: string; role: Role }, tokenId: string): Promise<{ id: string }> {
  const mine = caller.role === 'admin' ? undefined : eq(apiTokens.userId, caller.id);
  return db.transaction(async (tx) => {
    const done = await tx
      .update(apiTokens)
      .set({ revokedAt: new Date() })
      .where(and(eq(apiTokens.id, tokenId), isNull(apiTokens.revokedAt), mine))
      .returning({ id: apiTokens.id, prefix: apiTokens.prefix });
    if (!done[0]) throw new TokenNotFoundError(tokenId);
    await appendAudit(tx, { actor: caller, action: 'token.revoke', target: tokenId, detail: { prefix: done[0].prefix } });
    return { id: tokenId };
  });
}
