/** React Flow shapes of a mesh: one node per member (typed by kind), one edge per channel. */
import type { Edge, Node } from '@xyflow/react';
import type { Channel, Member, MemberKind } from '@trellis/mesh/schema';

export type MemberNodeData = { member: Member };
export type MemberNode = Node<MemberNodeData, MemberKind>;

export type ChannelEdgeData = { channel: Channel };
export type ChannelEdge = Edge<ChannelEdgeData, 'channel'>;

/** The parts of a mesh file that are not drawn: they travel beside the canvas. */
export interface MeshMeta {
  name: string;
  description?: string | undefined;
}
