/**
 * The one place that converts a mesh file to React Flow nodes and edges and back.
 * Positions persist in the mesh's `layout`; React Flow's own state (`selected`, `measured`,
 * `dragging`, …) never reaches the file.
 */
import { channelName, MESH_FORMAT, type Channel, type Layout, type Member, type Mesh } from '@trellis/mesh/schema';
import type { ChannelEdge, MemberNode, MeshMeta } from './types';

/** Spacing used when a member has no saved position. */
export const GRID = { x: 260, y: 130 } as const;

/** A member as a node at `position`. */
export function memberNode(member: Member, position: { x: number; y: number }): MemberNode {
  return { id: member.id, type: member.kind, position: { x: position.x, y: position.y }, data: { member } };
}

/** A channel as an edge; `id` defaults to the channel's name (its `id`, else `from->to`). */
export function channelEdge(channel: Channel, id = channelName(channel)): ChannelEdge {
  return {
    id,
    type: 'channel',
    source: channel.from,
    target: channel.to,
    sourceHandle: 'out',
    targetHandle: 'in',
    data: { channel },
    // React's SVG attribute types leave out data-* attributes, which the DOM (and Playwright) accept.
    domAttributes: { 'data-testid': `edge-${channel.from}-${channel.to}` } as ChannelEdge['domAttributes'],
  };
}

/**
 * Nodes and edges for a mesh. Members without a saved position are placed in a column to the right
 * of the placed ones (the canvas offers auto-layout to tidy up).
 */
export function meshToFlow(mesh: Mesh): { nodes: MemberNode[]; edges: ChannelEdge[] } {
  const layout: Layout = mesh.layout ?? {};
  const placed = Object.values(layout);
  const freeX = placed.length ? Math.max(...placed.map((p) => p.x)) + GRID.x : 0;
  let row = 0;
  const nodes = mesh.members.map((m) => memberNode(m, layout[m.id] ?? { x: freeX, y: GRID.y * row++ }));
  const seen = new Map<string, number>();
  const edges = mesh.channels.map((c) => {
    // Two channels with the same name are a finding, but React Flow still needs distinct edge ids.
    const name = channelName(c);
    const n = (seen.get(name) ?? 0) + 1;
    seen.set(name, n);
    return channelEdge(c, n === 1 ? name : `${name}#${n}`);
  });
  return { nodes, edges };
}

/** The mesh file for what the canvas shows: members in node order, channels in edge order, positions in `layout`. */
export function flowToMesh(meta: MeshMeta, nodes: readonly MemberNode[], edges: readonly ChannelEdge[]): Mesh {
  const layout: Layout = {};
  for (const n of nodes) layout[n.data.member.id] = { x: n.position.x, y: n.position.y };
  const channels = edges.map((e): Channel => {
    const c = e.data?.channel;
    const out: Channel = { from: e.source, to: e.target };
    if (c?.id !== undefined) out.id = c.id;
    if (c?.when !== undefined && c.when.trim() !== '') out.when = c.when;
    return out;
  });
  return {
    format: MESH_FORMAT,
    name: meta.name,
    ...(meta.description !== undefined ? { description: meta.description } : {}),
    members: nodes.map((n) => n.data.member),
    channels,
    layout,
  };
}

/** The mesh without its layout: what validation and "unsaved changes" care about. */
export function logicOf(mesh: Mesh): Omit<Mesh, 'layout'> {
  const { layout: _layout, ...logic } = mesh;
  return logic;
}
