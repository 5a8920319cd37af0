/**
 * Single sign-on's user side on real Postgres: first sign-in creates or links, the subject finds
 * the person afterwards, the role comes from the mapped claim, and refusals name why. The browser
 * flow against a real OpenID provider is e2e/auth/sso.spec.ts.
 */
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { userIdentities } from '@trellis/db/schema/user-identities';
import { users } from '@trellis/db/schema/users';
import { useTestDb } from '../../test/harness';
import { listAudit } from '../audit/list-audit';
import { verifyAudit } from '../audit/verify';
import { addUser } from './add-user';
import { setUserDisabled } from './change-user';
import { loadSessionUser } from './session-user';
import { mappedRole, OidcSignInRefusedError, parseRoleMap, signInWithOidc, type OidcPolicy } from './sign-in-oidc';
import { verifyCredentials } from './verify-credentials';

const handle = useTestDb('postgres');
const ISSUER = 'https://id.example.test';
const policy: OidcPolicy = {
  roleClaim: 'groups',
  roles: parseRoleMap('trellis-admins=admin, analysts=designer, ops=operator'),
  defaultRole: 'viewer',
  createUsers: true,
};
const person = (sub: string, extra: Record<string, unknown> = {}) => ({ issuer: ISSUER, claims: { sub, email: `${sub}@corp.test`, email_verified: true, name: sub, ...extra } });

describe('single sign-on users', () => {
  it('maps the most powerful mapped group to a role, and reads a bad mapping as an error naming the setting', () => {
    expect(mappedRole({ groups: ['ops', 'analysts', 'other'] }, policy)).toBe('designer');
    expect(mappedRole({ groups: 'trellis-admins' }, policy)).toBe('admin');
    expect(mappedRole({ groups: ['other'] }, policy)).toBeNull();
    expect(mappedRole({}, policy)).toBeNull();
    expect(() => parseRoleMap('ops=boss')).toThrow('TRELLIS_OIDC_ROLES (ops): "boss" is not a role; expected one of admin, designer, operator, viewer');
    expect(() => parseRoleMap('ops')).toThrow('TRELLIS_OIDC_ROLES: "ops" is not value=role (e.g. trellis-admins=admin)');
  });

  it('creates the user on first sign-in with the mapped role, then finds them by subject even after an email change', async () => {
    const first = await signInWithOidc(handle.db, person('ana', { groups: ['analysts'] }), policy);
    expect(first).toMatchObject({ email: 'ana@corp.test', role: 'designer' });
    // No password was set: the password form cannot sign this person in.
    expect(await verifyCredentials(handle.db, { email: 'ana@corp.test', password: '' })).toBeNull();
    const again = await signInWithOidc(handle.db, { issuer: ISSUER, claims: { sub: 'ana', email: 'ana.new@corp.test', groups: ['analysts'] } }, policy);
    expect(again.id).toBe(first.id);
    // Unmapped groups: a new person gets the default role.
    expect(await signInWithOidc(handle.db, person('vic', { groups: ['unrelated'] }), policy)).toMatchObject({ role: 'viewer' });
  });

  it('links a person an admin added by their verified email, keeping their role when no group maps', async () => {
    const added = await addUser(handle.db, { email: 'olga@corp.test', role: 'operator', password: 'olga-password' });
    const signed = await signInWithOidc(handle.db, person('olga-sub', { email: 'Olga@Corp.test' }), policy);
    expect(signed).toMatchObject({ id: added.id, role: 'operator' });
    expect(await handle.db.select().from(userIdentities).where(eq(userIdentities.userId, added.id))).toHaveLength(1);
    // An address the provider has not verified neither links to an account nor claims a new one.
    await expect(signInWithOidc(handle.db, person('mallory', { email: 'olga@corp.test', email_verified: false }), policy)).rejects.toThrow(
      'the identity provider has not verified olga@corp.test, so it cannot be linked to a Trellis account',
    );
    await expect(signInWithOidc(handle.db, person('mallory', { email: 'new@corp.test', email_verified: false }), policy)).rejects.toThrow(OidcSignInRefusedError);
  });

  it('applies a changed group on the next sign-in and ends the sessions issued before', async () => {
    const before = await signInWithOidc(handle.db, person('ana', { groups: ['analysts'] }), policy);
    const after = await signInWithOidc(handle.db, person('ana', { groups: ['ops'] }), policy);
    expect(after).toMatchObject({ role: 'operator', sessionVersion: before.sessionVersion + 1 });
    expect(await loadSessionUser(handle.db, { userId: before.id, sessionVersion: before.sessionVersion })).toBeNull();
    const [change] = await listAudit(handle.db, { action: 'user.role', limit: 1 });
    expect(change).toMatchObject({ target: 'ana@corp.test', detail: { from: 'designer', to: 'operator', method: 'oidc', claim: 'groups' } });
  });

  it('refuses a disabled user, a service account, and (as configured) people nobody added or with no mapped group', async () => {
    const ana = await signInWithOidc(handle.db, person('ana'), policy);
    await setUserDisabled(handle.db, ana.id, true);
    const refusal = (p: Promise<unknown>) => p.then(() => 'signed in', (e: unknown) => (e instanceof OidcSignInRefusedError ? e.reason : String(e)));
    expect(await refusal(signInWithOidc(handle.db, person('ana'), policy))).toBe('disabled');
    await expect(signInWithOidc(handle.db, person('ana'), policy)).rejects.toThrow('ana@corp.test is disabled in Trellis; ask an admin to enable it');
    const bot = await addUser(handle.db, { email: 'bot@corp.test', role: 'operator', password: 'bot-password-1' });
    await handle.db.update(users).set({ kind: 'service' }).where(eq(users.id, bot.id));
    expect(await refusal(signInWithOidc(handle.db, person('bot'), policy))).toBe('service_account');
    expect(await refusal(signInWithOidc(handle.db, person('newcomer'), { ...policy, createUsers: false }))).toBe('not_invited');
    expect(await refusal(signInWithOidc(handle.db, person('nogroup'), { ...policy, defaultRole: null }))).toBe('no_role');
    expect(await refusal(signInWithOidc(handle.db, { issuer: ISSUER, claims: { sub: 'anon' } }, policy))).toBe('no_email');
    const [refused] = await listAudit(handle.db, { action: 'sign_in.refused', limit: 1 });
    expect(refused).toMatchObject({ target: 'anon', detail: { method: 'oidc', issuer: ISSUER } });
    // The same subject at another issuer is another identity.
    expect(await refusal(signInWithOidc(handle.db, { issuer: 'https://other.test', claims: { sub: 'ana', email: 'ana@corp.test', email_verified: true } }, policy))).toBe('disabled');
    expect(await verifyAudit(handle.db)).toMatchObject({ ok: true });
  });
});
