/**
 * The secrets store (docs/security.md): secrets a step may send and named SQL connections, sealed
 * with AES-256-GCM under the install's key. Admins write and delete; nothing ever reads a value
 * back out except the engine, at the moment a step sends it to a host on the secret's list.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { and, asc, eq, sql } from 'drizzle-orm';
import type { Db } from '@trellis/db/client';
import { secrets } from '@trellis/db/schema/secrets';
import { hostMatches } from '../../sandbox/egress-core.mjs';
import { BadInputError } from '../kernel/errors';
import { appendAuditBy } from '../audit/append';
import { PolicyRefusedError } from './refusal';
import type { SecretsKey } from './secret-key';

/** What an entry is: a value steps send (`secret`) or a database URL (`connection`). */
export type SecretKind = 'secret' | 'connection';

/** An entry as admins see it: never the value. */
export interface SecretInfo {
  kind: SecretKind;
  name: string;
  /**
   * Where the value may go (empty for connections): hosts (`api.example.com`, `*.example.com`,
   * `host:port`) it may be sent to, and `tool:<name>` entries naming registered tool servers whose
   * environment it may be placed in.
   */
  hosts: string[];
  createdBy: string;
  updatedBy: string;
  createdAt: Date;
  updatedAt: Date;
}

const NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;
const HOST = /^(\*|\*\.)?[A-Za-z0-9.-]*[A-Za-z0-9](:\d{1,5})?$/;
/** A target that is a registered tool server rather than a host: `tool:<registry name>`. */
const TOOL_TARGET = /^tool:[A-Za-z0-9][A-Za-z0-9_-]{0,62}$/;
const TOOL_PREFIX = 'tool:';

/** The target entry that lets a secret into the environment of the registered tool server `tool`. */
export function toolTarget(tool: string): string {
  return `${TOOL_PREFIX}${tool}`;
}

interface Sealed {
  ciphertext: string;
  iv: string;
  tag: string;
  keyId: string;
}

/** Seals `value` under `key` (AES-256-GCM, fresh 12-byte IV; the kind and name are the associated data). */
export function seal(key: SecretsKey, kind: SecretKind, name: string, value: string): Sealed {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key.bytes, iv);
  cipher.setAAD(Buffer.from(`${kind}:${name}`));
  const ciphertext = Buffer.concat([cipher.update(value, 'utf8'), cipher.final()]);
  return { ciphertext: ciphertext.toString('base64'), iv: iv.toString('base64'), tag: cipher.getAuthTag().toString('base64'), keyId: key.id };
}

/**
 * Opens a sealed value.
 * @throws PolicyRefusedError (`secrets`) when the key is not the one that sealed it or the row was altered.
 */
export function unseal(key: SecretsKey, kind: SecretKind, name: string, row: Sealed): string {
  try {
    const decipher = createDecipheriv('aes-256-gcm', key.bytes, Buffer.from(row.iv, 'base64'));
    decipher.setAAD(Buffer.from(`${kind}:${name}`));
    decipher.setAuthTag(Buffer.from(row.tag, 'base64'));
    return Buffer.concat([decipher.update(Buffer.from(row.ciphertext, 'base64')), decipher.final()]).toString('utf8');
  } catch {
    const why = row.keyId === key.id ? 'its stored form was altered' : `it was sealed with key ${row.keyId}, not this install's key ${key.id} (see \`trellis secret rotate-key\`)`;
    throw new PolicyRefusedError('secrets', `the ${kind} ${name} cannot be opened: ${why}`);
  }
}

/**
 * Creates or replaces an entry.
 * @throws BadInputError naming the field for a bad name, an empty value or a malformed host.
 */
export async function setSecret(
  db: Db,
  key: SecretsKey,
  entry: { kind: SecretKind; name: string; value: string; hosts?: readonly string[]; by: string },
): Promise<SecretInfo> {
  if (!NAME.test(entry.name)) throw new BadInputError(`name ${JSON.stringify(entry.name)}: expected letters, digits and "_", not starting with a digit`);
  if (entry.value === '') throw new BadInputError(`value of ${entry.name}: expected some text`);
  const hosts = [...new Set((entry.hosts ?? []).map(normalTarget).filter((h) => h !== ''))];
  for (const h of hosts) {
    const ok = h.startsWith(TOOL_PREFIX) ? TOOL_TARGET.test(h) : HOST.test(h);
    if (!ok) throw new BadInputError(`hosts: ${JSON.stringify(h)} is not a host such as api.example.com, api.example.com:8443 or *.example.com, nor a tool server as tool:search`);
  }
  if (entry.kind === 'secret' && hosts.length === 0) throw new BadInputError(`hosts of ${entry.name}: list at least one host the secret may be sent to (or tool:<name> for a registered tool server)`);
  if (entry.kind === 'connection' && !/^postgres(ql)?:\/\//.test(entry.value)) throw new BadInputError(`value of ${entry.name}: expected a postgres:// URL`);
  const sealed = seal(key, entry.kind, entry.name, entry.value);
  const row = await db.transaction(async (tx) => {
    const [stored] = await tx
      .insert(secrets)
      .values({ kind: entry.kind, name: entry.name, ...sealed, hosts, createdBy: entry.by, updatedBy: entry.by })
      .onConflictDoUpdate({ target: [secrets.kind, secrets.name], set: { ...sealed, hosts, updatedBy: entry.by, updatedAt: sql`now()` } })
      .returning();
    if (!stored) throw new Error(`the ${entry.kind} ${entry.name} was not stored`);
    // Never the value: only which entry, and the hosts it may go to.
    await appendAuditBy(tx, entry.by, { action: `${entry.kind}.set`, target: entry.name, detail: { hosts } });
    return stored;
  });
  return info(row);
}

/** Every entry of a kind, by name, without values. */
export async function listSecrets(db: Db, kind: SecretKind): Promise<SecretInfo[]> {
  const rows = await db.select().from(secrets).where(eq(secrets.kind, kind)).orderBy(asc(secrets.name));
  return rows.map(info);
}

/** Deletes an entry; true when there was one. `by` (a user id, or `cli`) is recorded in the audit trail. */
export async function deleteSecret(db: Db, kind: SecretKind, name: string, by?: string): Promise<boolean> {
  return db.transaction(async (tx) => {
    const gone = await tx.delete(secrets).where(and(eq(secrets.kind, kind), eq(secrets.name, name))).returning({ name: secrets.name });
    if (gone.length > 0) await appendAuditBy(tx, by, { action: `${kind}.remove`, target: name });
    return gone.length > 0;
  });
}

/**
 * The value of the secret `name` for a request to `url`, for the engine only.
 * @throws PolicyRefusedError (`secrets`) when there is no such secret or `url`'s host is not on its list.
 */
export async function secretForHost(db: Db, key: SecretsKey, name: string, url: URL, use: string): Promise<string> {
  const [row] = await db.select().from(secrets).where(and(eq(secrets.kind, 'secret'), eq(secrets.name, name)));
  if (!row) throw new PolicyRefusedError('secrets', `${use} references the secret ${name}, which is not in the secrets store (an admin adds it with \`trellis secret set ${name} --hosts <host>\`)`);
  if (!row.hosts.some((h) => !h.startsWith(TOOL_PREFIX) && hostMatches(url.host, h))) {
    throw new PolicyRefusedError('secrets', `${use} would send the secret ${name} to ${url.host}, which is not one of its hosts (${row.hosts.join(', ')})`);
  }
  return unseal(key, 'secret', name, row);
}

/**
 * The value of the secret `name` for the environment of the registered tool server `tool` (a local
 * stdio process, which has no host), for the engine only. Allowed only when an admin listed
 * `tool:<tool>` among the secret's targets; no host or host pattern ever admits a tool server.
 * @throws PolicyRefusedError (`secrets`) when there is no such secret or `tool:<tool>` is not on its list.
 */
export async function secretForTool(db: Db, key: SecretsKey, name: string, tool: string, use: string): Promise<string> {
  const [row] = await db.select().from(secrets).where(and(eq(secrets.kind, 'secret'), eq(secrets.name, name)));
  if (!row) throw new PolicyRefusedError('secrets', `${use} references the secret ${name}, which is not in the secrets store (an admin adds it with \`trellis secret set ${name} --hosts ${toolTarget(tool)}\`)`);
  if (!row.hosts.includes(toolTarget(tool))) {
    throw new PolicyRefusedError('secrets', `${use} would place the secret ${name} in the environment of tool server "${tool}", which is not one of its targets (${row.hosts.join(', ')}); an admin allows it by adding ${toolTarget(tool)}`);
  }
  return unseal(key, 'secret', name, row);
}

/**
 * The URL of the named SQL connection, for the engine only.
 * @throws PolicyRefusedError (`connections`) when there is none by that name.
 */
export async function connectionUrl(db: Db, key: SecretsKey, name: string): Promise<string> {
  const [row] = await db.select().from(secrets).where(and(eq(secrets.kind, 'connection'), eq(secrets.name, name)));
  if (!row) throw new PolicyRefusedError('connections', `no SQL connection is named ${name} (an admin adds one with \`trellis connection set ${name}\`; \`trellis\` is Trellis's own database)`);
  return unseal(key, 'connection', name, row);
}

/**
 * Re-seals every entry sealed with `from` under `to` in one transaction; returns how many.
 * Entries already under `to` are left alone, so an interrupted rotation can simply be run again.
 * @throws PolicyRefusedError when an entry opens under neither key.
 */
export async function rotateSecretsKey(db: Db, from: SecretsKey, to: SecretsKey): Promise<number> {
  return db.transaction(async (tx) => {
    const rows = await tx.select().from(secrets).for('update');
    let n = 0;
    for (const row of rows) {
      if (row.keyId === to.id) continue;
      const kind = row.kind as SecretKind;
      const value = unseal(from, kind, row.name, row);
      await tx.update(secrets).set(seal(to, kind, row.name, value)).where(and(eq(secrets.kind, kind), eq(secrets.name, row.name)));
      n++;
    }
    await appendAuditBy(tx, null, { action: 'secret.rotate_key', target: to.id, detail: { from: from.id, resealed: n } });
    return n;
  });
}

/** Hosts are case-insensitive and kept lower-case; a tool target keeps its registry name as written. */
function normalTarget(target: string): string {
  const t = target.trim();
  return t.toLowerCase().startsWith(TOOL_PREFIX) ? `${TOOL_PREFIX}${t.slice(TOOL_PREFIX.length)}` : t.toLowerCase();
}

function info(row: typeof secrets.$inferSelect): SecretInfo {
  return { kind: row.kind as SecretKind, name: row.name, hosts: row.hosts, createdBy: row.createdBy, updatedBy: row.updatedBy, createdAt: row.createdAt, updatedAt: row.updatedAt };
}
