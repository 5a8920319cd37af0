/**
 * Identifiers. Message ids are deterministic (DESIGN.md §3) so a republish is a no-op everywhere;
 * everything else gets a UUIDv7, which sorts by creation time.
 */
import { createHash, randomBytes } from 'node:crypto';

function sha256(parts: readonly (string | number | null)[]): string {
  // JSON framing keeps ("a","bc") and ("ab","c") apart. Hex output has no ':' (BullMQ forbids it in ids).
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex');
}

/** Id of the message a parent sends as its `index`-th output on `channel`. */
export function messageId(runId: string, parentId: string, channel: string, index: number): string {
  return sha256([runId, parentId, channel, index]);
}

/**
 * Id of the `filtered` trail row for a parent's `index`-th output, which routing dropped. Its parts
 * are framed differently from {@link messageId}'s, so it can never equal a child's id, whatever a
 * channel is named.
 */
export function filteredId(runId: string, parentId: string, index: number): string {
  return sha256([runId, parentId, index, 'filtered']);
}

/** Id of the run's head message (its input). */
export function headMessageId(runId: string): string {
  return sha256([runId, 'input']);
}

/**
 * Id of the message a combine sends when its join fires. It hangs on the join, not on whichever part
 * happened to complete it, so the id is the same whoever fires.
 */
export function joinOutputId(runId: string, member: string, key: string, channel: string, index: number): string {
  return sha256([runId, `join/${member}/${key}`, channel, index]);
}

/** A time-ordered UUID (RFC 9562 version 7). */
export function uuidv7(now = Date.now()): string {
  const b = randomBytes(16);
  b.writeUIntBE(now, 0, 6);
  b[6] = ((b[6] ?? 0) & 0x0f) | 0x70;
  b[8] = ((b[8] ?? 0) & 0x3f) | 0x80;
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}
