// Whether npm start's generated password is the admin's (users/ensure-admin.ts passwordInForce), and
// the banner line it leads to (scripts/lib.mjs signInLine): the file is named only when its password
// signs the admin in.
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { useTestDb } from '../../test/harness';
import { ensureAdmin, passwordInForce } from './ensure-admin';

interface SignIn {
  email: string;
  generated: boolean;
  inForce: boolean | undefined;
  passwordFile: string;
}
const LIB = fileURLToPath(new URL('../../../../scripts/lib.mjs', import.meta.url));
const { signInLine } = (await import(LIB)) as { signInLine: (o: SignIn) => string };

const handle = useTestDb();

describe('the generated admin password in force', () => {
  it('is true only for the password the admin was created with, whatever the case of the email', async () => {
    // An earlier start created the admin from TRELLIS_ADMIN_PASSWORD; the file made later holds another.
    await ensureAdmin(handle.db, { email: 'admin@trellis.local', password: 'chosen-earlier-password' });
    expect(await passwordInForce(handle.db, 'admin@trellis.local', 'file-password-made-later')).toBe(false);
    expect(await passwordInForce(handle.db, 'Admin@Trellis.local', 'chosen-earlier-password')).toBe(true);
    expect(await passwordInForce(handle.db, 'nobody@trellis.local', 'chosen-earlier-password')).toBe(false);
    // A second ensureAdmin with the file's password changes nothing: the earlier one stays in force.
    expect(await ensureAdmin(handle.db, { email: 'admin@trellis.local', password: 'file-password-made-later' })).toEqual({ created: false });
    expect(await passwordInForce(handle.db, 'admin@trellis.local', 'file-password-made-later')).toBe(false);
  });

  it('points the banner at the file only when its password is in force', () => {
    const base = { email: 'admin@trellis.local', passwordFile: '.data/admin-password' };
    expect(signInLine({ ...base, generated: true, inForce: true })).toBe('Sign in as admin@trellis.local with the password in .data/admin-password (set TRELLIS_ADMIN_PASSWORD to choose your own)');
    const stale = signInLine({ ...base, generated: true, inForce: false });
    expect(stale).toMatch(/^Sign in as admin@trellis\.local with that account's own password \(the one in \.data\/admin-password is not it/);
    expect(signInLine({ ...base, generated: true, inForce: undefined })).toBe(stale);
    expect(signInLine({ ...base, generated: false, inForce: undefined })).toBe('Sign in as admin@trellis.local');
  });
});
