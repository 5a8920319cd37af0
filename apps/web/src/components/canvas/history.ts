/**
 * Undo and redo over the mesh file: a bounded stack of snapshots of the whole document (members,
 * channels with their ids and conditions, layout). Pure; the canvas records a snapshot whenever the
 * file changes and no member is being dragged, so a drag or a multi-select move is one step.
 */
import type { Mesh } from '@trellis/mesh/schema';

/** Snapshots before and after the present one; `lastKey`/`lastAt` drive the merging of typing bursts. */
export interface History {
  readonly past: readonly Mesh[];
  readonly present: Mesh;
  readonly future: readonly Mesh[];
  readonly lastKey: string | null;
  /** When the present was recorded, ms since the epoch. */
  readonly lastAt: number;
}

/** Steps kept before the oldest is dropped. */
export const HISTORY_LIMIT = 200;
/** Edits of the same field closer together than this (ms) are one step: typing a name is one undo. */
export const MERGE_WINDOW_MS = 1000;

/** A history whose only state is `present`. */
export function startHistory(present: Mesh): History {
  return { past: [], present, future: [], lastKey: null, lastAt: 0 };
}

/**
 * Records `next` as the new present. Nothing happens when it equals the present (a selection change,
 * an undo being applied). When `next` changes the same member or channel settings as the last step
 * within {@link MERGE_WINDOW_MS}, the last step is amended instead of a new one pushed. Redo is cleared.
 */
export function record(h: History, next: Mesh, now: number, limit = HISTORY_LIMIT): History {
  if (sameMesh(h.present, next)) return h;
  const key = editKey(h.present, next);
  if (key !== null && key === h.lastKey && now - h.lastAt < MERGE_WINDOW_MS && h.past.length > 0) {
    return { ...h, present: next, future: [], lastAt: now };
  }
  const past = [...h.past, h.present];
  return { past: past.length > limit ? past.slice(past.length - limit) : past, present: next, future: [], lastKey: key, lastAt: now };
}

/** One step back; the same history when there is nothing to undo. */
export function undo(h: History): History {
  const previous = h.past.at(-1);
  if (previous === undefined) return h;
  return { past: h.past.slice(0, -1), present: previous, future: [h.present, ...h.future], lastKey: null, lastAt: 0 };
}

/** One step forward again; the same history when there is nothing to redo. */
export function redo(h: History): History {
  const next = h.future[0];
  if (next === undefined) return h;
  return { past: [...h.past, h.present], present: next, future: h.future.slice(1), lastKey: null, lastAt: 0 };
}

/** Whether two snapshots are the same document (key order included, as the mappers build them). */
export function sameMesh(a: Mesh, b: Mesh): boolean {
  return a === b || JSON.stringify(a) === JSON.stringify(b);
}

/**
 * What an edit touched when it is a settings edit that may merge with the next: `member:<id>` when one
 * member's settings changed (same ids, channels and layout), `channel:<i>` when one channel's condition
 * or id changed; otherwise null (adds, deletes, moves and connects are always their own step).
 */
export function editKey(before: Mesh, after: Mesh): string | null {
  if (JSON.stringify(before.layout) !== JSON.stringify(after.layout)) return null;
  if (before.members.length !== after.members.length || before.channels.length !== after.channels.length) return null;
  if (JSON.stringify([before.name, before.description]) !== JSON.stringify([after.name, after.description])) return null;
  const members = changedIndexes(before.members, after.members);
  const channels = changedIndexes(before.channels, after.channels);
  if (members.length === 1 && channels.length === 0) {
    const i = members[0] as number;
    return before.members[i]?.id === after.members[i]?.id ? `member:${after.members[i]?.id}` : null;
  }
  if (members.length === 0 && channels.length === 1) {
    const i = channels[0] as number;
    const [b, a] = [before.channels[i], after.channels[i]];
    return b?.from === a?.from && b?.to === a?.to ? `channel:${i}` : null;
  }
  return null;
}

function changedIndexes<T>(a: readonly T[], b: readonly T[]): number[] {
  const out: number[] = [];
  a.forEach((x, i) => {
    if (JSON.stringify(x) !== JSON.stringify(b[i])) out.push(i);
  });
  return out;
}
