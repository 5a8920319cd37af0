/** Split frames and payload field helpers shared by the steps and the join. */
import { readField } from '@trellis/mesh/condition';

/**
 * One level of the split stack a message carries: the split that fanned out (`split`, the key its
 * combine joins on), this part's position and how many parts there are. `count: 0` marks the
 * `void` stand-in of a split with no parts.
 */
export interface Frame {
  split: string;
  index: number;
  count: number;
}

/** An output of a member before it is routed to channels. */
export interface Item {
  payload: unknown;
  frames: Frame[];
  /** Stands for zero parts; every member forwards it so the combine downstream still fires once. */
  void: boolean;
}

const HEX_KEY = /^[0-9a-f]{64}$/;
/** A raw key in the packed form: none of the separators, and not empty. */
const RAW_KEY = /^[^|;]+$/;

/**
 * Frames as the message row stores them: one JSON string `key|index|count;…`, where a 64-hex key
 * (a message id) is written as its 43 base64url characters and any other key as `.` + itself.
 * About 160 bytes for three frames against 390 for the array of objects (docs/benchmarks.md).
 * Frames whose key has a `|` or `;` stay an array of objects, which {@link parseFrames} reads too.
 */
export function packFrames(frames: readonly Frame[]): string | readonly Frame[] {
  const parts: string[] = [];
  for (const f of frames) {
    let key: string;
    if (HEX_KEY.test(f.split)) key = Buffer.from(f.split, 'hex').toString('base64url');
    else if (RAW_KEY.test(f.split)) key = `.${f.split}`;
    else return frames;
    parts.push(`${key}|${f.index}|${f.count}`);
  }
  return parts.join(';');
}

function unpackFrames(packed: string): Frame[] {
  if (packed === '') return [];
  const out: Frame[] = [];
  for (const part of packed.split(';')) {
    const [key, index, count] = part.split('|');
    if (key === undefined || index === undefined || count === undefined || key === '') continue;
    const split = key.startsWith('.') ? key.slice(1) : Buffer.from(key, 'base64url').toString('hex');
    const f = { split, index: Number(index), count: Number(count) };
    if (Number.isInteger(f.index) && Number.isInteger(f.count)) out.push(f);
  }
  return out;
}

/**
 * Reads frames as stored (the packed string of {@link packFrames}, or an array of objects as
 * written before it), dropping anything malformed (they are written only by the engine).
 */
export function parseFrames(json: unknown): Frame[] {
  if (typeof json === 'string') return unpackFrames(json);
  if (!Array.isArray(json)) return [];
  return json.filter(
    (f): f is Frame =>
      typeof f === 'object' && f !== null && typeof (f as Frame).split === 'string' &&
      Number.isInteger((f as Frame).index) && Number.isInteger((f as Frame).count),
  );
}

/** Reads a dotted field (missing reads as null), the same way conditions do. */
export const getField = readField;

/** `{ a: { b: value } }` for the path `a.b`. */
export function fieldObject(path: string, value: unknown): Record<string, unknown> {
  const keys = path.split('.');
  let out: unknown = value;
  for (let i = keys.length - 1; i >= 0; i--) out = { [keys[i] ?? '']: out };
  return out as Record<string, unknown>;
}
