import { describe, expect, it } from 'vitest';
import { useTestDb } from '../../test/harness';
import { ensureAdmin } from './ensure-admin';
import { verifyCredentials } from './verify-credentials';

const handle = useTestDb();

describe('first admin and sign-in', () => {
  it('creates the admin once, then signs in only with the right password', async () => {
    const first = await ensureAdmin(handle.db, { email: ' Admin@Example.com ', password: 's3cret-pass' });
    expect(first).toEqual({ created: true, email: 'admin@example.com' });
    expect(await ensureAdmin(handle.db, { email: 'other@example.com', password: 'x' })).toEqual({ created: false });

    const user = await verifyCredentials(handle.db, { email: 'ADMIN@example.com', password: 's3cret-pass' });
    expect(user).toMatchObject({ email: 'admin@example.com', role: 'admin' });
    expect(await verifyCredentials(handle.db, { email: 'admin@example.com', password: 'wrong' })).toBeNull();
    expect(await verifyCredentials(handle.db, { email: 'nobody@example.com', password: 's3cret-pass' })).toBeNull();
  });
});
