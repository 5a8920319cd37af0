/** Creating and renaming members on the canvas. */
import type { Member, MemberKind } from '@trellis/mesh/schema';
import { kindUi } from './kinds/kind-ui';
import { channelEdge, GRID } from './mappers';
import type { ChannelEdge, MemberNode } from './types';

/** A fresh member of `kind` with sensible defaults and an id not yet taken (`agent-1`, `agent-2`, …). */
export function newMember(kind: MemberKind, taken: ReadonlySet<string>, nestedDefault = 'other-mesh'): Member {
  let n = 1;
  while (taken.has(`${kind}-${n}`)) n++;
  const id = `${kind}-${n}`;
  return kindUi(kind).defaults(id, { nestedDefault });
}

/** A spot below the lowest node, left-aligned with the first, so a clicked-in member never lands on another. */
export function freePosition(nodes: readonly MemberNode[]): { x: number; y: number } {
  if (nodes.length === 0) return { x: 0, y: 0 };
  const lowest = Math.max(...nodes.map((n) => n.position.y + (n.measured?.height ?? 90)));
  return { x: nodes[0]?.position.x ?? 0, y: lowest + GRID.y - 90 };
}

/** Renames a member everywhere it is named: its node, its member id, and the ends of its channels. */
export function renameMember(
  nodes: readonly MemberNode[],
  edges: readonly ChannelEdge[],
  from: string,
  to: string,
): { nodes: MemberNode[]; edges: ChannelEdge[] } {
  const swap = (id: string) => (id === from ? to : id);
  return {
    nodes: nodes.map((n) => (n.id === from ? { ...n, id: to, data: { member: { ...n.data.member, id: to } } } : n)),
    edges: edges.map((e) => {
      if (e.source !== from && e.target !== from) return e;
      const channel = e.data?.channel ?? { from: e.source, to: e.target };
      return { ...channelEdge({ ...channel, from: swap(e.source), to: swap(e.target) }), selected: e.selected ?? false };
    }),
  };
}
