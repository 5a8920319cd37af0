/**
 * Copy and paste: a fragment is a mesh file holding the selected members and the channels between
 * them, so it can be pasted into this mesh or another one (and read by anything that reads mesh files).
 * Pure; the clipboard wiring lives in use-clipboard.ts.
 */
import { parseMeshFile } from '@trellis/mesh/parse';
import { channelName, MESH_FORMAT, type Channel, type Layout, type Member, type Mesh } from '@trellis/mesh/schema';

/** Name a fragment carries (a mesh file needs one); never used on paste. */
export const FRAGMENT_NAME = 'clipboard';
/** How far pasted members are moved from where they were copied (flow units, both axes). */
export const PASTE_OFFSET = 40;

/**
 * The fragment for `ids` in `mesh`: those members, the channels whose two ends are both among them
 * (ids and conditions kept), and their positions. Unknown ids are skipped; null when none is known.
 */
export function copyFragment(mesh: Mesh, ids: Iterable<string>): Mesh | null {
  const wanted = new Set(ids);
  const members = mesh.members.filter((m) => wanted.has(m.id));
  if (members.length === 0) return null;
  const layout: Layout = {};
  for (const m of members) {
    const at = mesh.layout?.[m.id];
    if (at) layout[m.id] = { x: at.x, y: at.y };
  }
  const channels = mesh.channels.filter((c) => wanted.has(c.from) && wanted.has(c.to)).map((c) => ({ ...c }));
  return { format: MESH_FORMAT, name: FRAGMENT_NAME, members: structuredClone(members), channels, layout };
}

/** The fragment as clipboard text (a mesh file, pretty JSON). */
export function fragmentText(fragment: Mesh): string {
  return `${JSON.stringify(fragment, null, 2)}\n`;
}

/** Clipboard text read back: the fragment, or a sentence saying why it is not one. */
export type ReadFragment = { ok: true; fragment: Mesh } | { ok: false; message: string };

/** Reads clipboard text with the mesh file reader; anything it refuses (or an empty fragment) is refused. */
export function readFragment(text: string): ReadFragment {
  if (text.trim() === '') return { ok: false, message: 'The clipboard is empty: copy members on a canvas first.' };
  const res = parseMeshFile(text);
  if (!res.ok) {
    const why = res.findings.map((f) => f.message).slice(0, 3).join(' ');
    return { ok: false, message: `The clipboard does not hold members copied from a mesh: ${why}` };
  }
  if (res.mesh.members.length === 0) return { ok: false, message: 'The clipboard holds a mesh file without members: nothing to paste.' };
  return { ok: true, fragment: res.mesh };
}

/** What pasting added: the mesh with the copies, and the new member ids (to select them). */
export interface Pasted {
  mesh: Mesh;
  ids: string[];
}

/**
 * Pastes `fragment` into `mesh`: every member gets an id not taken in `mesh` (`<id>-copy`,
 * `<id>-copy-2`, …), channels are re-pointed to the copies (a channel id gets a fresh one the same way),
 * conditions and settings are kept, positions move by `offset`, and no copy is the head.
 * Channels of the fragment with an end outside it are dropped.
 */
export function pasteFragment(mesh: Mesh, fragment: Mesh, offset = PASTE_OFFSET): Pasted {
  const takenMembers = new Set(mesh.members.map((m) => m.id));
  const takenChannels = new Set(mesh.channels.map((c) => channelName(c)));
  const rename = new Map<string, string>();
  const members: Member[] = fragment.members.map((m) => {
    const id = freshId(m.id, takenMembers);
    rename.set(m.id, id);
    const { head: _head, ...rest } = structuredClone(m);
    return { ...rest, id };
  });
  const placedYs = Object.values(mesh.layout ?? {});
  const fallbackY = placedYs.length ? Math.max(...placedYs.map((p) => p.y)) + 130 : 0;
  const layout: Layout = { ...(mesh.layout ?? {}) };
  fragment.members.forEach((m, i) => {
    const at = fragment.layout?.[m.id] ?? { x: 0, y: fallbackY + 130 * i };
    layout[rename.get(m.id) as string] = { x: at.x + offset, y: at.y + offset };
  });
  const channels: Channel[] = [];
  for (const c of fragment.channels) {
    const from = rename.get(c.from);
    const to = rename.get(c.to);
    if (from === undefined || to === undefined) continue;
    const out: Channel = { from, to };
    if (c.id !== undefined) out.id = freshId(c.id, takenChannels);
    else takenChannels.add(`${from}->${to}`);
    if (c.when !== undefined) out.when = c.when;
    channels.push(out);
  }
  return {
    mesh: { ...mesh, members: [...mesh.members, ...members], channels: [...mesh.channels, ...channels], layout },
    ids: members.map((m) => m.id),
  };
}

/** `base-copy`, else `base-copy-2`, … the first not in `taken` (which it then joins). Ids stay ≤ 64 chars. */
function freshId(base: string, taken: Set<string>): string {
  const stem = base.replace(/-copy(-\d+)?$/, '').slice(0, 50);
  let id = `${stem}-copy`;
  for (let n = 2; taken.has(id); n++) id = `${stem}-copy-${n}`;
  taken.add(id);
  return id;
}
