/**
 * Sessions end when the person signs out, is disabled, is removed, changes role or changes their
 * password: the old session's claims (what the JWT carries) are refused on the next call.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDb, type DbHandle } from '@trellis/db/client';
import type { Engine } from '@trellis/engine/engine';
import { addUser } from '@trellis/engine/users/add-user';
import { removeUser, setUserDisabled, setUserRole } from '@trellis/engine/users/change-user';
import { endSessions } from '@trellis/engine/users/own-account';
import type { SessionClaims } from '@trellis/engine/users/session-user';
import { verifyCredentials } from '@trellis/engine/users/verify-credentials';
import { appRouter } from './root';

let handle: DbHandle;
beforeAll(async () => {
  handle = await openDb({ dataDir: 'memory://' });
  await handle.migrate();
  await addUser(handle.db, { email: 'root@s.test', role: 'admin', password: 'root-password' });
}, 180_000);
afterAll(async () => handle.close());

/** Signs in as a fresh person and returns the session claims next-auth would put in the JWT. */
async function signIn(email: string, role = 'designer'): Promise<SessionClaims> {
  await addUser(handle.db, { email, role, password: 'a-password-1' }).catch(() => undefined);
  const user = await verifyCredentials(handle.db, { email, password: 'a-password-1' });
  if (!user) throw new Error(`cannot sign in as ${email}`);
  return { userId: user.id, sessionVersion: user.sessionVersion };
}

const me = (session: SessionClaims) =>
  appRouter.createCaller({ session, db: handle.db, engine: { db: handle.db } as unknown as Engine }).account.me();

describe('ending sessions', () => {
  it.each([
    ['signs out', (c: SessionClaims) => endSessions(handle.db, c.userId)],
    ['is disabled', (c: SessionClaims) => setUserDisabled(handle.db, c.userId, true)],
    ['is removed', (c: SessionClaims) => removeUser(handle.db, c.userId)],
    ['changes role', (c: SessionClaims) => setUserRole(handle.db, c.userId, 'viewer')],
    [
      'changes their password',
      async (c: SessionClaims) => {
        await appRouter
          .createCaller({ session: c, db: handle.db, engine: {} as Engine })
          .account.changePassword({ current: 'a-password-1', password: 'a-new-password' });
      },
    ],
  ])('refuses the old session after the person %s', async (what, end) => {
    const claims = await signIn(`${what.replace(/\W/g, '-')}@s.test`);
    expect((await me(claims)).id).toBe(claims.userId);
    await end(claims);
    await expect(me(claims)).rejects.toMatchObject({ code: 'UNAUTHORIZED', message: 'your session has ended; sign in again' });
  });

  it('lets a person sign in again after a role change, with the new role', async () => {
    const old = await signIn('again@s.test', 'designer');
    await setUserRole(handle.db, old.userId, 'operator');
    await expect(me(old)).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
    expect(await me(await signIn('again@s.test'))).toMatchObject({ role: 'operator' });
  });

  it('refuses sign-in for a disabled person', async () => {
    const claims = await signIn('off@s.test');
    await setUserDisabled(handle.db, claims.userId, true);
    expect(await verifyCredentials(handle.db, { email: 'off@s.test', password: 'a-password-1' })).toBeNull();
    await setUserDisabled(handle.db, claims.userId, false);
    expect(await verifyCredentials(handle.db, { email: 'off@s.test', password: 'a-password-1' })).not.toBeNull();
  });
});
