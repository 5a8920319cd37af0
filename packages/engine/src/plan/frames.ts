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

/** Reads frames stored as JSON, dropping anything malformed (they are written only by the engine). */
export function parseFrames(json: unknown): Frame[] {
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
