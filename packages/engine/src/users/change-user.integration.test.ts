/** Adding and changing users: roles, the last-admin policy, passwords. */
import { describe, expect, it } from 'vitest';
import { useTestDb } from '../../test/harness';
import { addUser } from './add-user';
import { removeUser, setUserDisabled, setUserRole } from './change-user';
import { listUsers } from './list-users';
import { changePassword } from './own-account';
import { verifyCredentials } from './verify-credentials';

const handle = useTestDb();

describe('users', () => {
  it('adds people with a role, generating a password shown once when none is given', async () => {
    const added = await addUser(handle.db, { email: ' Ana@Example.com ', role: 'Designer' });
    expect(added).toMatchObject({ email: 'ana@example.com', role: 'designer', password: expect.any(String) as unknown });
    expect(await verifyCredentials(handle.db, { email: 'ana@example.com', password: added.password ?? '' })).toMatchObject({ role: 'designer' });
    await expect(addUser(handle.db, { email: 'ana@example.com', role: 'viewer' })).rejects.toThrow('a user with the email ana@example.com exists already');
    await expect(addUser(handle.db, { email: 'x@example.com', role: 'member' })).rejects.toThrow('role: "member" is not a role; expected one of admin, designer, operator, viewer');
    await expect(addUser(handle.db, { email: 'nope', role: 'viewer' })).rejects.toThrow('email: "nope" is not an email address');
    await expect(addUser(handle.db, { email: 'y@example.com', role: 'viewer', password: 'short' })).rejects.toThrow('password: expected at least 10 characters');
  });

  it('never leaves Trellis without an active admin', async () => {
    const boss = await addUser(handle.db, { email: 'boss@example.com', role: 'admin', password: 'boss-password' });
    const policy = /refused by the last-admin policy: cannot (demote|disable|remove) the only active admin/;
    await expect(setUserRole(handle.db, 'boss@example.com', 'viewer')).rejects.toThrow(policy);
    await expect(setUserDisabled(handle.db, boss.id, true)).rejects.toThrow(policy);
    await expect(removeUser(handle.db, 'boss@example.com')).rejects.toThrow(policy);
    await setUserRole(handle.db, 'ana@example.com', 'admin');
    await setUserRole(handle.db, 'boss@example.com', 'operator');
    await expect(removeUser(handle.db, 'ana@example.com')).rejects.toThrow(policy);
    expect((await listUsers(handle.db)).map((u) => [u.email, u.role, u.disabled])).toEqual([
      ['ana@example.com', 'admin', false],
      ['boss@example.com', 'operator', false],
    ]);
    await expect(setUserRole(handle.db, 'ghost@example.com', 'viewer')).rejects.toThrow('no user ghost@example.com');
  });

  it('changes a password only with the current one', async () => {
    const u = await addUser(handle.db, { email: 'pw@example.com', role: 'viewer', password: 'first-password' });
    await expect(changePassword(handle.db, u.id, { current: 'wrong-password', password: 'second-password' })).rejects.toThrow('current: that is not your current password');
    await changePassword(handle.db, u.id, { current: 'first-password', password: 'second-password' });
    expect(await verifyCredentials(handle.db, { email: 'pw@example.com', password: 'first-password' })).toBeNull();
    expect(await verifyCredentials(handle.db, { email: 'pw@example.com', password: 'second-password' })).toMatchObject({ sessionVersion: 2 });
  });
});
