/**
 * Single sign-on (OpenID Connect, issue 12): the person an identity provider vouched for, as a
 * Trellis user. The provider's `iss` and `sub` find a linked user; on first sign-in the identity is
 * linked to the user with the same (verified) email, or a user is created when the install allows
 * it. A role is mapped from a configured claim (e.g. `groups`): the most powerful role any of the
 * person's values maps to, applied on every sign-in (the provider owns the mapped groups); with no
 * mapped value a new user gets the default role and an existing one keeps theirs. Disabled users,
 * service accounts and (when so configured) people nobody invited are refused, naming why.
 */
import { randomBytes } from 'node:crypto';
import { and, eq, sql } from 'drizzle-orm';
import type { Db } from '@trellis/db/client';
import { userIdentities } from '@trellis/db/schema/user-identities';
import { users } from '@trellis/db/schema/users';
import { appendAudit, recordAudit, SYSTEM_ACTOR } from '../audit/append';
import { BadInputError, EngineError } from '../kernel/errors';
import { uuidv7 } from '../kernel/ids';
import { keepAnAdmin } from './last-admin';
import { LastAdminError } from './errors';
import { parseRole, ROLES, type Role } from './roles';
import { toSignedIn, type SignedInUser } from './verify-credentials';

/** How provider claims become Trellis users and roles (TRELLIS_OIDC_* settings). */
export interface OidcPolicy {
  /** The claim holding the person's groups or roles (a string or a list of strings). */
  roleClaim: string;
  /** Claim value → role. */
  roles: Readonly<Record<string, Role>>;
  /** The role of a new user none of whose values is mapped; null refuses such a person. */
  defaultRole: Role | null;
  /** Create a user on first sign-in (true), or only let in people an admin added (false). */
  createUsers: boolean;
}

/** What the provider said about the person: the ID token's and userinfo's claims. */
export interface OidcIdentity {
  issuer: string;
  claims: Record<string, unknown>;
}

/** Why a sign-in was refused; the code picks the sentence the sign-in page shows. */
export type OidcRefusal = 'disabled' | 'not_invited' | 'no_email' | 'unverified_email' | 'service_account' | 'no_role';

/** A single sign-on refused (HTTP 403), with a sentence that says why and what to do. */
export class OidcSignInRefusedError extends EngineError {
  static override readonly httpStatus = 403;
  constructor(
    readonly reason: OidcRefusal,
    email: string,
  ) {
    super('sso_refused', oidcRefusalSentence(reason, email));
  }
}

/** The sentence for a refusal, for `email` (or "this account" when unknown). */
export function oidcRefusalSentence(reason: OidcRefusal, email = ''): string {
  const who = email || 'this account';
  switch (reason) {
    case 'disabled':
      return `${who} is disabled in Trellis; ask an admin to enable it`;
    case 'not_invited':
      return `${who} has no Trellis account and this install only lets in people an admin added; ask an admin to add you`;
    case 'no_role':
      return `${who} is in no group that has a Trellis role; ask an admin to map one of your groups`;
    case 'no_email':
      return 'the identity provider sent no email address; Trellis needs the email scope';
    case 'unverified_email':
      return `the identity provider has not verified ${who}, so it cannot be linked to a Trellis account`;
    case 'service_account':
      return `${who} is a service account; it acts through API tokens and cannot sign in`;
  }
}

/**
 * Parses `group=role` pairs separated by commas (`trellis-admins=admin, ops=operator`).
 * @throws BadInputError naming `field` and the pair that is not `value=role`.
 */
export function parseRoleMap(text: string | undefined, field = 'TRELLIS_OIDC_ROLES'): Record<string, Role> {
  const map: Record<string, Role> = {};
  for (const raw of (text ?? '').split(',')) {
    const pair = raw.trim();
    if (pair === '') continue;
    const at = pair.lastIndexOf('=');
    const value = pair.slice(0, at).trim();
    if (at <= 0 || value === '') throw new BadInputError(`${field}: ${JSON.stringify(pair)} is not value=role (e.g. trellis-admins=admin)`);
    map[value] = parseRole(pair.slice(at + 1), `${field} (${value})`);
  }
  return map;
}

/** The most powerful role any of the person's claim values maps to, or null. */
export function mappedRole(claims: Record<string, unknown>, policy: Pick<OidcPolicy, 'roleClaim' | 'roles'>): Role | null {
  const raw = claims[policy.roleClaim];
  const values = (Array.isArray(raw) ? raw : [raw]).filter((v): v is string => typeof v === 'string');
  const roles = values.map((v) => policy.roles[v]).filter((r): r is Role => r !== undefined);
  return ROLES.find((r) => roles.includes(r)) ?? null;
}

const text = (v: unknown): string => (typeof v === 'string' ? v.trim() : '');

/**
 * Signs in the person `identity` names: finds or links or creates their user, applies the mapped
 * role (ending their other sessions when it changes, as any role change does), and records the
 * sign-in (and any user or role change) in the audit trail, all in one transaction.
 * @returns the user with the session version the new session must carry.
 * @throws OidcSignInRefusedError naming why (audited as `sign_in.refused`).
 */
export async function signInWithOidc(db: Db, identity: OidcIdentity, policy: OidcPolicy): Promise<SignedInUser> {
  const subject = text(identity.claims.sub);
  const email = text(identity.claims.email).toLowerCase();
  if (!subject) throw new BadInputError('sub: the identity provider sent no subject');
  try {
    return await db.transaction(async (tx) => {
      const [linked] = await tx
        .select({ user: users })
        .from(userIdentities)
        .innerJoin(users, eq(users.id, userIdentities.userId))
        .where(and(eq(userIdentities.issuer, identity.issuer), eq(userIdentities.subject, subject)))
        .limit(1);
      let row = linked?.user;
      const role = mappedRole(identity.claims, policy);
      const detail = { method: 'oidc', issuer: identity.issuer, subject };
      if (!row) {
        if (!email) throw new OidcSignInRefusedError('no_email', '');
        // Linking by email trusts the provider's word that the address is the person's.
        if (identity.claims.email_verified === false) throw new OidcSignInRefusedError('unverified_email', email);
        [row] = await tx.select().from(users).where(eq(users.email, email)).limit(1);
        if (!row) {
          if (!policy.createUsers) throw new OidcSignInRefusedError('not_invited', email);
          const newRole = role ?? policy.defaultRole;
          if (!newRole) throw new OidcSignInRefusedError('no_role', email);
          const name = text(identity.claims.name) || text(identity.claims.preferred_username) || email.split('@')[0] || email;
          // No password: this person signs in through the provider (an admin may set one later).
          [row] = await tx.insert(users).values({ id: uuidv7(), email, name, role: newRole, passwordHash: `sso$${randomBytes(8).toString('hex')}` }).returning();
          if (!row) throw new Error(`the user ${email} was not created`);
          await appendAudit(tx, { actor: SYSTEM_ACTOR, action: 'user.add', target: email, detail: { role: newRole, ...detail } });
        }
        await tx.insert(userIdentities).values({ issuer: identity.issuer, subject, userId: row.id });
        await appendAudit(tx, { actor: SYSTEM_ACTOR, action: 'user.link', target: row.email, detail });
      } else {
        await tx.update(userIdentities).set({ lastSignInAt: new Date() }).where(and(eq(userIdentities.issuer, identity.issuer), eq(userIdentities.subject, subject)));
      }
      if (row.disabledAt) throw new OidcSignInRefusedError('disabled', row.email);
      if (row.kind !== 'person') throw new OidcSignInRefusedError('service_account', row.email);
      if (role && role !== row.role) {
        if (row.role === 'admin') await keepAnAdmin(tx, row.id, 'demote');
        const [changed] = await tx
          .update(users)
          .set({ role, sessionVersion: sql`${users.sessionVersion} + 1` })
          .where(eq(users.id, row.id))
          .returning();
        if (!changed) throw new Error(`the user ${row.email} was not updated`);
        await appendAudit(tx, { actor: SYSTEM_ACTOR, action: 'user.role', target: row.email, detail: { from: row.role, to: role, method: 'oidc', claim: policy.roleClaim } });
        row = changed;
      }
      await appendAudit(tx, { actor: { id: row.id, email: row.email }, action: 'sign_in', target: row.email, detail });
      return toSignedIn(row);
    });
  } catch (err) {
    if (err instanceof OidcSignInRefusedError || err instanceof LastAdminError) {
      await recordAudit(db, { actor: { id: null, email: email || null }, action: 'sign_in.refused', target: email || subject, detail: { method: 'oidc', issuer: identity.issuer, reason: err.message } });
    }
    throw err;
  }
}
