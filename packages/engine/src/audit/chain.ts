/**
 * The audit trail's hash chain (issue 12): each entry's hash is the SHA-256 (hex) of the previous
 * entry's hash followed by the entry's canonical JSON: object keys sorted at every depth, no
 * whitespace, dates as ISO 8601 strings. The first entry's previous hash is 64 zeros.
 */
import { createHash } from 'node:crypto';

/** The previous hash of the first entry. */
export const GENESIS_HASH = '0'.repeat(64);

/** What is sealed of one entry (every column but the hashes). */
export interface AuditFields {
  seq: number;
  at: Date;
  actorId: string | null;
  actorEmail: string | null;
  action: string;
  target: string | null;
  detail: Record<string, unknown>;
}

/** JSON with sorted keys and no whitespace; `undefined` members are left out, as JSON.stringify does. */
export function canonicalJson(value: unknown): string {
  if (value instanceof Date) return JSON.stringify(value.toISOString());
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : canonicalJson(v))).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** The hash of an entry that follows `prevHash`. */
export function entryHash(prevHash: string, fields: AuditFields): string {
  return createHash('sha256').update(prevHash).update(canonicalJson(fields)).digest('hex');
}
