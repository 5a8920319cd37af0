/**
 * Which keyed joins a part travelling on a channel is headed for (DESIGN.md §3 "Keyed join").
 *
 * A split pushes a frame onto every part it sends (`{ split, index, count }`) and the first combine
 * downstream pops it: that combine joins on the split's key and waits for `count` parts. A part that
 * a condition drops must still be accounted for at that combine, or it would wait forever. These
 * helpers find, for each channel, the combines that would pop the frame on top of the sender's
 * output ("level 0"): walking downstream, a workflow pushes one frame per split-like step (`split`,
 * `email`), a combine pops one, every other member keeps the frames it was given. Pure and
 * iterative; loops (a validation error of their own) end the walk instead of spinning.
 */
import { channelName, type Channel, type Member, type Mesh } from './schema';

/** Frames a member pushes onto what it receives: one per split-like workflow step. */
export function framesPushed(member: Member): number {
  if (member.kind !== 'workflow') return 0;
  return member.steps.filter((s) => s.type === 'split' || s.type === 'email').length;
}

/**
 * For every channel (by {@link channelName}): the ids of the combines that would join on the frame
 * that is on top of the sender's output when a part is sent on it, in a stable order. A channel
 * whose parts reach no such combine maps to an empty list.
 */
export function joinsAcross(mesh: Pick<Mesh, 'members' | 'channels'>): Map<string, string[]> {
  const members = new Map(mesh.members.map((m) => [m.id, m]));
  const out = new Map<string, Channel[]>();
  for (const ch of mesh.channels) {
    const list = out.get(ch.from);
    if (list) list.push(ch);
    else out.set(ch.from, [ch]);
  }
  // Deeper than this many frames, the walk is in a loop: no mesh nests splits that deep.
  const maxLevel = mesh.members.length + 1;
  const result = new Map<string, string[]>();
  for (const ch of mesh.channels) {
    const found = new Set<string>();
    const seen = new Set<string>();
    const todo: [string, number][] = [[ch.to, 0]];
    for (let next = todo.pop(); next !== undefined; next = todo.pop()) {
      const [id, level] = next;
      const key = `${id}\u0000${level}`;
      const member = members.get(id);
      if (seen.has(key) || !member || level > maxLevel) continue;
      seen.add(key);
      let after = level + framesPushed(member);
      if (member.kind === 'combine') {
        if (level === 0) {
          found.add(id);
          continue;
        }
        after = level - 1;
      }
      for (const c of out.get(id) ?? []) todo.push([c.to, after]);
    }
    result.set(channelName(ch), mesh.members.map((m) => m.id).filter((id) => found.has(id)));
  }
  return result;
}

/**
 * How many frames a member's output may carry, over every path from the head: the set of frame
 * depths it can send with. A combine reached by a part without frames fires alone and sends none.
 * Members the head cannot reach map to an empty set.
 */
export function outputDepths(mesh: Pick<Mesh, 'members' | 'channels'>): Map<string, Set<number>> {
  const members = new Map(mesh.members.map((m) => [m.id, m]));
  const depths = new Map<string, Set<number>>(mesh.members.map((m) => [m.id, new Set<number>()]));
  const out = new Map<string, string[]>();
  for (const ch of mesh.channels) {
    const list = out.get(ch.from);
    if (list) list.push(ch.to);
    else out.set(ch.from, [ch.to]);
  }
  const maxLevel = mesh.members.length + 1;
  const todo: [string, number][] = mesh.members.filter((m) => m.head === true).map((m) => [m.id, 0]);
  for (let next = todo.pop(); next !== undefined; next = todo.pop()) {
    const [id, incoming] = next;
    const member = members.get(id);
    if (!member || incoming > maxLevel) continue;
    const sent = member.kind === 'combine' ? Math.max(incoming - 1, 0) : incoming + framesPushed(member);
    const set = depths.get(id);
    if (!set || set.has(sent)) continue;
    set.add(sent);
    for (const to of out.get(id) ?? []) todo.push([to, sent]);
  }
  return depths;
}
