/**
 * What changed between two versions of a mesh file, and one mesh to draw both on.
 * Members are matched by id, channels by their name (`id`, else `from->to`, packages/mesh schema's
 * `channelName`). A member whose settings differ is `changed` (naming the top-level fields that
 * differ); one only dragged elsewhere is `moved`, which is not a change to the mesh's logic.
 * Pure: no React, no network.
 */
import { channelName, type Channel, type Member, type Mesh } from '@trellis/mesh/schema';

/** How one member or channel compares: only in the newer version, only in the older, or in both. */
export type DiffState = 'added' | 'removed' | 'changed' | 'same';

/** A member or channel present in both versions whose content differs. */
export interface Changed {
  /** Member id or channel name. */
  key: string;
  /** Top-level fields that differ (`steps`, `when`, `label`, …), sorted. */
  fields: string[];
}

/** The differences from `before` to `after`; every list is sorted by id or name. */
export interface MeshDiff {
  members: { added: string[]; removed: string[]; changed: Changed[]; moved: string[] };
  channels: { added: string[]; removed: string[]; changed: Changed[] };
  /** Mesh-level fields that differ (`name`, `description`), sorted. */
  mesh: string[];
  /** Members, channels and mesh fields that differ in total (moves not counted). */
  total: number;
}

/** Compares two mesh files. `before` is the older version, `after` the newer one. */
export function diffMeshes(before: Mesh, after: Mesh): MeshDiff {
  const members = compare(byKey(before.members, (m) => m.id), byKey(after.members, (m) => m.id));
  const channels = compare(byKey(before.channels, channelName), byKey(after.channels, channelName));
  const moved = [...byKey(after.members, (m) => m.id).keys()]
    .filter((id) => !members.added.includes(id) && !samePosition(before.layout?.[id], after.layout?.[id]))
    .sort();
  const mesh = (['name', 'description'] as const).filter((f) => stableJson(before[f] ?? null) !== stableJson(after[f] ?? null));
  const count = (d: { added: string[]; removed: string[]; changed: Changed[] }) => d.added.length + d.removed.length + d.changed.length;
  return { members: { ...members, moved }, channels, mesh, total: count(members) + count(channels) + mesh.length };
}

/**
 * One mesh holding both versions, for drawing a diff: every member and channel of `after`, plus the
 * ones `before` had and `after` removed (at their old positions), with each one's state.
 * `memberState` is keyed by member id, `channelState` by channel name.
 */
export function diffCanvas(before: Mesh, after: Mesh): { mesh: Mesh; memberState: Record<string, DiffState>; channelState: Record<string, DiffState> } {
  const d = diffMeshes(before, after);
  const changedMembers = new Set(d.members.changed.map((c) => c.key));
  const changedChannels = new Set(d.channels.changed.map((c) => c.key));
  const removedMembers = before.members.filter((m) => d.members.removed.includes(m.id));
  const removedChannels = before.channels.filter((c) => d.channels.removed.includes(channelName(c)));
  const memberState: Record<string, DiffState> = {};
  for (const m of after.members) memberState[m.id] = d.members.added.includes(m.id) ? 'added' : changedMembers.has(m.id) ? 'changed' : 'same';
  for (const m of removedMembers) memberState[m.id] = 'removed';
  const channelState: Record<string, DiffState> = {};
  for (const c of after.channels) {
    const name = channelName(c);
    channelState[name] = d.channels.added.includes(name) ? 'added' : changedChannels.has(name) ? 'changed' : 'same';
  }
  for (const c of removedChannels) channelState[channelName(c)] = 'removed';
  const layout: NonNullable<Mesh['layout']> = {};
  for (const m of removedMembers) {
    const at = before.layout?.[m.id];
    if (at) layout[m.id] = at;
  }
  Object.assign(layout, after.layout ?? {});
  const mesh: Mesh = {
    ...after,
    // A removed head is drawn as an ordinary member, so the drawing never shows two heads.
    members: [...after.members, ...removedMembers.map((m) => withoutHead(m))],
    channels: [...after.channels, ...removedChannels],
    layout,
  };
  return { mesh, memberState, channelState };
}

/** JSON with object keys sorted at every level, so two equal values always give the same text. */
export function stableJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.keys(value).sort().map((k) => [k, sortKeys((value as Record<string, unknown>)[k])]));
  }
  return value;
}

function byKey<T>(items: readonly T[], key: (t: T) => string): Map<string, T> {
  const map = new Map<string, T>();
  // A duplicate id is a finding in the file; the first one counts here, as the canvas draws it first.
  for (const item of items) if (!map.has(key(item))) map.set(key(item), item);
  return map;
}

function compare<T extends Member | Channel>(before: Map<string, T>, after: Map<string, T>): { added: string[]; removed: string[]; changed: Changed[] } {
  const added = [...after.keys()].filter((k) => !before.has(k)).sort();
  const removed = [...before.keys()].filter((k) => !after.has(k)).sort();
  const changed: Changed[] = [];
  for (const [key, next] of [...after.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const prev = before.get(key);
    if (!prev) continue;
    const a = prev as Record<string, unknown>;
    const b = next as Record<string, unknown>;
    const fields = [...new Set([...Object.keys(a), ...Object.keys(b)])].filter((f) => stableJson(a[f] ?? null) !== stableJson(b[f] ?? null)).sort();
    if (fields.length > 0) changed.push({ key, fields });
  }
  return { added, removed, changed };
}

function samePosition(a: { x: number; y: number } | undefined, b: { x: number; y: number } | undefined): boolean {
  if (!a || !b) return a === b;
  return Math.round(a.x) === Math.round(b.x) && Math.round(a.y) === Math.round(b.y);
}

function withoutHead(m: Member): Member {
  if (!m.head) return m;
  const { head: _head, ...rest } = m;
  return rest;
}
