/**
 * Creating API tokens: a person for themselves (within their role), or an admin for a service
 * account (created on first use with the role given). The token is `trl_` and 32 random bytes in
 * base64url, returned this once; only its SHA-256 is stored.
 */
import { createHash, randomBytes } from 'node:crypto';
import { eq } from 'drizzle-orm';
import type { Db } from '@trellis/db/client';
import { apiTokens } from '@trellis/db/schema/api-tokens';
import { users } from '@trellis/db/schema/users';
import { IdSchema } from '@trellis/mesh/schema';
import { BadInputError } from '../kernel/errors';
import { appendAudit, type AuditActor } from '../audit/append';
import { uuidv7 } from '../kernel/ids';
import { AccessRefusedError } from '../users/errors';
import { parseRole, type Role } from '../users/roles';
import { ScopeRefusedError } from './errors';
import { MAX_SCOPE, SCOPES, scopeIncludes, type Scope } from './scopes';

/** Longest expiry, in days. */
export const MAX_EXPIRY_DAYS = 365;

/** What a new token is for. `expiresInDays` null means it never expires (admins' service tokens only). */
export interface NewTokenInput {
  name: string;
  /** A scope name, checked here. */
  scope: string;
  expiresInDays: number | null;
}

/** A token just created: `token` is shown this once. */
export interface CreatedToken {
  id: string;
  token: string;
  prefix: string;
  scope: Scope;
  expiresAt: Date | null;
}

/** SHA-256 (hex) of a token, as stored. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

function parseScope(value: string): Scope {
  const scope = SCOPES.find((s) => s === value);
  if (!scope) throw new BadInputError(`scope: ${JSON.stringify(value)} is not a scope; expected one of ${SCOPES.join(', ')}`);
  return scope;
}

async function insertToken(db: Db, owner: { id: string; email: string }, creator: AuditActor, input: NewTokenInput, scope: Scope): Promise<CreatedToken> {
  const name = input.name.trim();
  if (!name || name.length > 100) throw new BadInputError('name: expected 1-100 characters');
  const days = input.expiresInDays;
  if (days !== null && (!Number.isInteger(days) || days < 1 || days > MAX_EXPIRY_DAYS)) {
    throw new BadInputError(`expiresInDays: expected a whole number of days from 1 to ${MAX_EXPIRY_DAYS}`);
  }
  const token = `trl_${randomBytes(32).toString('base64url')}`;
  const expiresAt = days === null ? null : new Date(Date.now() + days * 86_400_000);
  const id = uuidv7();
  const prefix = token.slice(0, 12);
  await db.transaction(async (tx) => {
    await tx.insert(apiTokens).values({ id, userId: owner.id, name, tokenHash: hashToken(token), prefix, scope, expiresAt, createdBy: creator.id ?? owner.id });
    await appendAudit(tx, { actor: creator, action: 'token.create', target: id, detail: { owner: owner.email, name, prefix, scope, expiresAt } });
  });
  return { id, token, prefix, scope, expiresAt };
}

/**
 * A personal token for `creator`, within their role. Only service tokens may never expire.
 * @throws ScopeRefusedError when the scope is wider than the role; BadInputError.
 */
export function createPersonalToken(db: Db, creator: { id: string; email: string; role: Role }, input: NewTokenInput): Promise<CreatedToken> {
  const scope = parseScope(input.scope);
  if (!scopeIncludes(MAX_SCOPE[creator.role], scope)) throw new ScopeRefusedError(scope, creator.role, MAX_SCOPE[creator.role]);
  if (input.expiresInDays === null) throw new BadInputError('expiresInDays: a personal token must expire');
  return insertToken(db, creator, creator, input, scope);
}

/**
 * A token for the service account `account` (an id: letters, digits, "-", "_"), created with `role`
 * when it does not exist yet. Admins only.
 * @throws AccessRefusedError for a non-admin creator; BadInputError.
 */
export async function createServiceToken(
  db: Db,
  creator: { id: string; email: string; role: Role },
  input: NewTokenInput & { account: string; role: string },
): Promise<CreatedToken & { account: string }> {
  if (creator.role !== 'admin') throw new AccessRefusedError('admin', creator.role, 'a service token');
  const account = IdSchema.safeParse(input.account);
  if (!account.success) throw new BadInputError('account: expected 1-63 letters, digits, "-" or "_"');
  const role = parseRole(input.role);
  const scope = parseScope(input.scope);
  const email = `${account.data}@service.trellis`;
  await db.insert(users).values({ id: uuidv7(), email, name: account.data, role, kind: 'service', passwordHash: '!' }).onConflictDoNothing();
  const [row] = await db.select().from(users).where(eq(users.email, email)).limit(1);
  if (row?.kind !== 'service') throw new BadInputError(`account: ${email} is a person, not a service account`);
  return { ...(await insertToken(db, row, creator, input, scope)), account: account.data };
}
