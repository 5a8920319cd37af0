/**
 * Auto-layout with ELK's layered algorithm (elkjs): ranks top to bottom following the channels, so
 * the head sits on top, and places every channel's condition label as a box of its own between the
 * ranks, so no label lies on a member or on another label. Channels are routed orthogonally from a
 * member's bottom (out) handle to the next member's top (in) handle.
 */
import ELK, { type ElkExtendedEdge, type ElkNode } from 'elkjs/lib/elk.bundled.js';
import type { ChannelEdge, ChannelRoute, MemberNode } from './types';

/** Size assumed for a member React Flow has not measured yet (px; members are `w-52`). */
export const DEFAULT_SIZE = { width: 208, height: 90 } as const;

/** Label box geometry (px): 10 px monospace text, `px-1.5` padding and a 1 px border. */
const LABEL = { charWidth: 6.2, padding: 16, height: 20, severity: 14 } as const;

/** Where the layout puts each member (top-left corner) and how each channel is drawn, by edge id. */
export interface LayoutResult {
  positions: Map<string, { x: number; y: number }>;
  routes: Map<string, ChannelRoute>;
}

/** The text a channel's label shows: its condition, or "always" while the canvas is editable. */
export function labelText(when: string | undefined, readOnly: boolean): string {
  const w = when?.trim();
  return w ? w : readOnly ? '' : 'always';
}

/**
 * Width (px) the label of `text` may take on the canvas, room for a findings mark included (findings
 * come and go; the layout must not depend on them).
 */
export function labelWidth(text: string): number {
  return Math.ceil(text.length * LABEL.charWidth + LABEL.padding + LABEL.severity);
}

let elk: InstanceType<typeof ELK> | null = null;

/**
 * Lays out `nodes` along `edges` (edges whose ends are missing are ignored). Uses measured sizes
 * where React Flow has them, else {@link DEFAULT_SIZE}. Deterministic: the same members, sizes and channels give the same result.
 */
export async function autoLayout(
  nodes: readonly MemberNode[],
  edges: readonly ChannelEdge[],
): Promise<LayoutResult> {
  elk ??= new ELK();
  const ids = new Set(nodes.map((n) => n.id));
  const children: ElkNode[] = nodes.map((n) => {
    const width = n.measured?.width ?? DEFAULT_SIZE.width;
    const height = n.measured?.height ?? DEFAULT_SIZE.height;
    return {
      id: n.id,
      width,
      height,
      layoutOptions: { 'elk.portConstraints': 'FIXED_POS' },
      ports: [
        { id: `${n.id}\u0000in`, x: width / 2, y: 0, width: 0, height: 0, layoutOptions: { 'elk.port.side': 'NORTH' } },
        { id: `${n.id}\u0000out`, x: width / 2, y: height, width: 0, height: 0, layoutOptions: { 'elk.port.side': 'SOUTH' } },
      ],
    };
  });
  const elkEdges: ElkExtendedEdge[] = edges
    .filter((e) => ids.has(e.source) && ids.has(e.target) && e.source !== e.target)
    .map((e) => {
      // Only conditions get a slot of their own; "always" sits on a stretch of the line (see alwaysAt).
      const text = e.data?.channel.when?.trim() ?? '';
      return {
        id: e.id,
        sources: [`${e.source}\u0000out`],
        targets: [`${e.target}\u0000in`],
        labels: text
          ? [{ text, width: labelWidth(text), height: LABEL.height, layoutOptions: { 'elk.edgeLabels.placement': 'CENTER', 'elk.edgeLabels.inline': 'true' } }]
          : [],
      };
    });
  const graph = await elk.layout({
    id: 'mesh',
    layoutOptions: {
      'elk.algorithm': 'layered',
      'elk.direction': 'DOWN',
      'elk.edgeRouting': 'ORTHOGONAL',
      'elk.spacing.nodeNode': '48',
      'elk.spacing.edgeNode': '20',
      'elk.spacing.edgeEdge': '14',
      'elk.spacing.edgeLabel': '4',
      'elk.layered.spacing.nodeNodeBetweenLayers': '48',
      'elk.layered.spacing.edgeNodeBetweenLayers': '32',
      'elk.layered.nodePlacement.strategy': 'BRANDES_KOEPF',
      'elk.layered.nodePlacement.bk.fixedAlignment': 'BALANCED',
      // Keep the file's member and channel order where crossings allow, so branches read left to right as written.
      'elk.layered.considerModelOrder.strategy': 'NODES_AND_EDGES',
      // Labels sit on their channel's line, each in a slot of its own between the ranks.
      'elk.edgeLabels.inline': 'true',
      'elk.padding': '[top=20,left=20,bottom=20,right=20]',
    },
    children,
    edges: elkEdges,
  });
  const positions = new Map<string, { x: number; y: number }>();
  for (const c of graph.children ?? []) positions.set(c.id, { x: Math.round(c.x ?? 0), y: Math.round(c.y ?? 0) });
  const routes = new Map<string, ChannelRoute>();
  const outs = countBy(elkEdges, (e) => e.sources[0]);
  const ins = countBy(elkEdges, (e) => e.targets[0]);
  for (const e of graph.edges ?? []) {
    const s = e.sections?.[0];
    if (!s) continue;
    const points = [s.startPoint, ...(s.bendPoints ?? []), s.endPoint].map((p) => ({ x: Math.round(p.x), y: Math.round(p.y) }));
    const label = e.labels?.[0];
    const at = label
      ? { x: Math.round((label.x ?? 0) + (label.width ?? 0) / 2), y: Math.round((label.y ?? 0) + (label.height ?? 0) / 2) }
      : alwaysAt(points, outs.get(e.sources[0] ?? '') === 1, ins.get(e.targets[0] ?? '') === 1);
    routes.set(e.id, { points, label: at });
  }
  return { positions, routes };
}

function countBy<T>(items: readonly T[], key: (item: T) => string | undefined): Map<string, number> {
  const counts = new Map<string, number>();
  for (const item of items) {
    const k = key(item) ?? '';
    counts.set(k, (counts.get(k) ?? 0) + 1);
  }
  return counts;
}

/**
 * Where a channel without condition shows its "always": the middle of the stretch no other channel
 * shares — the first one when it is its member's only way out, else the last when it is the only
 * way in, else the middle of the whole line.
 */
function alwaysAt(points: readonly { x: number; y: number }[], onlyOut: boolean, onlyIn: boolean): { x: number; y: number } {
  const mid = (a: { x: number; y: number }, b: { x: number; y: number }) => ({ x: Math.round((a.x + b.x) / 2), y: Math.round((a.y + b.y) / 2) });
  const first = points[0] ?? { x: 0, y: 0 };
  const last = points[points.length - 1] ?? first;
  if (onlyOut) return mid(first, points[1] ?? last);
  if (onlyIn) return mid(points[points.length - 2] ?? first, last);
  return points[Math.floor(points.length / 2)] ?? first;
}

/**
 * True when every member sits where `result` would put it (within `tolerance` px): the saved layout
 * is this layout, so its channel routes and label places apply as they are.
 */
export function matchesLayout(nodes: readonly MemberNode[], result: LayoutResult, tolerance = 2): boolean {
  return nodes.every((n) => {
    const p = result.positions.get(n.id);
    return p !== undefined && Math.abs(p.x - n.position.x) <= tolerance && Math.abs(p.y - n.position.y) <= tolerance;
  });
}
