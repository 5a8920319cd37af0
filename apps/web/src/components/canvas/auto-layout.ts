/** Auto-layout with dagre: ranks top to bottom following the channels, so the head sits on top. */
import dagre from '@dagrejs/dagre';
import type { ChannelEdge, MemberNode } from './types';

const DEFAULT_SIZE = { width: 208, height: 90 };

/** New positions (top-left corners) for every node; nodes keep everything else. */
export function autoLayout(nodes: readonly MemberNode[], edges: readonly ChannelEdge[]): MemberNode[] {
  const g = new dagre.graphlib.Graph();
  g.setGraph({ rankdir: 'TB', nodesep: 48, ranksep: 70, marginx: 20, marginy: 20 });
  g.setDefaultEdgeLabel(() => ({}));
  for (const n of nodes) {
    g.setNode(n.id, { width: n.measured?.width ?? DEFAULT_SIZE.width, height: n.measured?.height ?? DEFAULT_SIZE.height });
  }
  for (const e of edges) if (g.hasNode(e.source) && g.hasNode(e.target)) g.setEdge(e.source, e.target);
  dagre.layout(g);
  return nodes.map((n) => {
    const p = g.node(n.id);
    // dagre gives centres; React Flow positions are top-left corners.
    return { ...n, position: { x: Math.round(p.x - p.width / 2), y: Math.round(p.y - p.height / 2) } };
  });
}
