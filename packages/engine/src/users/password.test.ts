import { describe, expect, it } from 'vitest';
import { hashPassword, verifyPassword } from './password';

describe('password hashing', () => {
  it('stores scrypt$salt$hash and verifies only the right password', async () => {
    const stored = await hashPassword('correct horse');
    expect(stored).toMatch(/^scrypt\$[0-9a-f]{32}\$[0-9a-f]{128}$/);
    expect(await verifyPassword('correct horse', stored)).toBe(true);
    expect(await verifyPassword('correct horsE', stored)).toBe(false);
  });

  it('salts every hash', async () => {
    expect(await hashPassword('same')).not.toBe(await hashPassword('same'));
  });

  it('treats a malformed hash as a mismatch', async () => {
    for (const bad of ['', 'plain', 'scrypt$zz$zz', 'bcrypt$00$00', `scrypt$${'0'.repeat(32)}$abcd`]) {
      expect(await verifyPassword('x', bad)).toBe(false);
    }
  });
});
