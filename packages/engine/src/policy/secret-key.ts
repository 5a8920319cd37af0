/**
 * The key that seals the secrets store: 32 bytes from TRELLIS_SECRETS_KEY (base64 or hex), else
 * from a key file made on first use with mode 0600 (docs/security.md, "Rotating the key").
 */
import { createHash, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/** A 32-byte AES-256 key and its id (first 16 hex of its SHA-256, stored beside each sealed value). */
export interface SecretsKey {
  bytes: Buffer;
  id: string;
}

/**
 * Reads a key written as 64 hex digits or as base64 of 32 bytes.
 * @throws Error naming `source` when the text is neither.
 */
export function parseSecretsKey(text: string, source: string): SecretsKey {
  const t = text.trim();
  const bytes = /^[0-9a-fA-F]{64}$/.test(t) ? Buffer.from(t, 'hex') : Buffer.from(t, 'base64');
  if (bytes.length !== 32 || (!/^[0-9a-fA-F]{64}$/.test(t) && bytes.toString('base64').replace(/=+$/, '') !== t.replace(/=+$/, ''))) {
    throw new Error(`${source} must be 32 bytes as 64 hex digits or base64 (make one with: openssl rand -base64 32)`);
  }
  return keyOf(bytes);
}

/** The key with its id. */
export function keyOf(bytes: Buffer): SecretsKey {
  return { bytes, id: createHash('sha256').update(bytes).digest('hex').slice(0, 16) };
}

/**
 * The install's key: `keyText` (TRELLIS_SECRETS_KEY) when given, else the file at `keyFile`,
 * created with a fresh random key and mode 0600 when missing.
 * @throws Error naming the setting or the file when the key is malformed.
 */
export function loadSecretsKey(keyText: string | undefined, keyFile: string): SecretsKey {
  if (keyText !== undefined && keyText.trim() !== '') return parseSecretsKey(keyText, 'TRELLIS_SECRETS_KEY');
  if (!existsSync(keyFile)) {
    mkdirSync(dirname(keyFile), { recursive: true });
    try {
      writeFileSync(keyFile, randomBytes(32).toString('base64') + '\n', { mode: 0o600, flag: 'wx' });
    } catch (err) {
      // Another process starting at the same time made it first: use theirs.
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
  chmodSync(keyFile, 0o600);
  return parseSecretsKey(readFileSync(keyFile, 'utf8'), `the key file ${keyFile}`);
}
