import { describe, expect, it } from 'vitest';
import { useTestDb } from '../../test/harness';
import { addUser } from './add-user';
import { resetPassword } from './change-user';
import { checkStartupSafety, DEFAULT_ADMIN_PASSWORD } from './startup-safety';

const handle = useTestDb();

describe('startup safety', () => {
  it('refuses the default admin password outside development, whether configured or still in use', async () => {
    await expect(checkStartupSafety(handle.db, { development: false, adminPassword: DEFAULT_ADMIN_PASSWORD })).rejects.toThrow(
      'TRELLIS_ADMIN_PASSWORD is the default "trellis-admin": choose another (or unset it to have one generated)',
    );
    await addUser(handle.db, { email: 'old@x.test', role: 'admin', password: DEFAULT_ADMIN_PASSWORD });
    await expect(checkStartupSafety(handle.db, { development: false, adminPassword: 'a-better-password' })).rejects.toThrow(
      'the admin old@x.test still has the default password: set a new one with `trellis user password old@x.test` before starting',
    );
    await checkStartupSafety(handle.db, { development: true, adminPassword: DEFAULT_ADMIN_PASSWORD });
    await resetPassword(handle.db, 'old@x.test', 'a-better-password');
    await checkStartupSafety(handle.db, { development: false, adminPassword: undefined });
  });
});
