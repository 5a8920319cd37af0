/** React Flow shapes of a mesh: one node per member (typed by kind), one edge per channel. */
import type { Edge, Node } from '@xyflow/react';
import type { Channel, Member, MemberKind } from '@trellis/mesh/schema';

export type MemberNodeData = { member: Member };
export type MemberNode = Node<MemberNodeData, MemberKind>;

/**
 * How auto-layout drew a channel, in flow coordinates (px): the path from the out handle through its
 * bends to the in handle, and the centre of its condition label. View state only, never saved.
 */
export interface ChannelRoute {
  points: { x: number; y: number }[];
  label?: { x: number; y: number };
}

export type ChannelEdgeData = { channel: Channel; route?: ChannelRoute };
export type ChannelEdge = Edge<ChannelEdgeData, 'channel'>;

/** The parts of a mesh file that are not drawn: they travel beside the canvas. */
export interface MeshMeta {
  name: string;
  description?: string | undefined;
}
