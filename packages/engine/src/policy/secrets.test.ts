import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { keyOf, parseSecretsKey } from './secret-key';
import { seal, unseal } from './secrets';

describe('sealing secrets (AES-256-GCM)', () => {
  const key = keyOf(randomBytes(32));

  it('opens what it sealed, and the stored form does not hold the value', () => {
    const sealed = seal(key, 'secret', 'CRM_TOKEN', 'Bearer s3cret-value');
    expect(JSON.stringify(sealed)).not.toContain('s3cret');
    expect(unseal(key, 'secret', 'CRM_TOKEN', sealed)).toBe('Bearer s3cret-value');
  });

  it('refuses another key, another name (the associated data) and an altered tag, naming the policy', () => {
    const sealed = seal(key, 'secret', 'A', 'value');
    expect(() => unseal(keyOf(randomBytes(32)), 'secret', 'A', sealed)).toThrow(/refused by the secrets policy: the secret A cannot be opened: it was sealed with key/);
    expect(() => unseal(key, 'secret', 'B', sealed)).toThrow('its stored form was altered');
    expect(() => unseal(key, 'secret', 'A', { ...sealed, tag: Buffer.alloc(16).toString('base64') })).toThrow('altered');
  });

  it('reads a key as 64 hex digits or base64 of 32 bytes, and refuses anything else naming the setting', () => {
    const bytes = randomBytes(32);
    expect(parseSecretsKey(bytes.toString('hex'), 'K').id).toBe(keyOf(bytes).id);
    expect(parseSecretsKey(bytes.toString('base64'), 'K').id).toBe(keyOf(bytes).id);
    expect(() => parseSecretsKey('too-short', 'TRELLIS_SECRETS_KEY')).toThrow('TRELLIS_SECRETS_KEY must be 32 bytes');
  });
});
