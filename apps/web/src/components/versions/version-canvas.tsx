'use client';
/**
 * A mesh version drawn read-only (the history page, the run page), optionally as a diff: each member and channel carries its diff
 * state as a class (`diff-added`, `diff-removed`, `diff-changed`), coloured by the styles below
 * (green added, red dashed removed, amber changed), so the canvas's own node and edge views stay
 * untouched.
 */
import { Background, Controls, ReactFlow, ReactFlowProvider } from '@xyflow/react';
import { useMemo } from 'react';
import { channelName, type Mesh } from '@trellis/mesh/schema';
import { ArrowMarkers } from '@/components/canvas/channel-edge';
import { meshToFlow } from '@/components/canvas/mappers';
import { edgeTypes, nodeTypes } from '@/components/canvas/node-types';
import { CanvasOverlayContext, type CanvasOverlay } from '@/components/canvas/overlay';
import type { DiffState } from './mesh-diff';

const OVERLAY: CanvasOverlay = { findingsByMember: new Map(), findingsByChannel: new Map(), readOnly: true };

/** Diff colours; `!important` because the channel view sets its stroke inline. */
const DIFF_STYLES = `
.react-flow__node.diff-added > div { outline: 3px solid #16a34a; outline-offset: 2px; }
.react-flow__node.diff-changed > div { outline: 3px solid #d97706; outline-offset: 2px; }
.react-flow__node.diff-removed > div { outline: 3px dashed #dc2626; outline-offset: 2px; opacity: 0.6; }
.react-flow__edge.diff-added .react-flow__edge-path { stroke: #16a34a !important; stroke-width: 3 !important; }
.react-flow__edge.diff-changed .react-flow__edge-path { stroke: #d97706 !important; stroke-width: 3 !important; }
.react-flow__edge.diff-removed .react-flow__edge-path { stroke: #dc2626 !important; stroke-width: 2.5 !important; stroke-dasharray: 6 4; }
`;

interface Props {
  mesh: Mesh;
  /** Per member id and channel name; absent for a plain (non-diff) view. */
  memberState?: Record<string, DiffState>;
  channelState?: Record<string, DiffState>;
  testId: string;
  /** What to draw on the members instead of nothing (the run page's message counts). */
  overlay?: CanvasOverlay;
}

export function VersionCanvas({ mesh, memberState, channelState, testId, overlay = OVERLAY }: Props) {
  const flow = useMemo(() => {
    const { nodes, edges } = meshToFlow(mesh);
    const cls = (s: DiffState | undefined) => (s && s !== 'same' ? `diff-${s}` : '');
    return {
      nodes: nodes.map((n) => ({ ...n, className: cls(memberState?.[n.id]) })),
      edges: edges.map((e) => ({ ...e, className: cls(e.data ? channelState?.[channelName(e.data.channel)] : undefined) })),
    };
  }, [mesh, memberState, channelState]);
  return (
    <div className="h-full min-h-[28rem] w-full overflow-hidden rounded-lg border border-slate-200 bg-white" data-testid={testId}>
      <style>{DIFF_STYLES}</style>
      <CanvasOverlayContext.Provider value={overlay}>
        <ReactFlowProvider>
          <ArrowMarkers />
          <ReactFlow key={testId} nodes={flow.nodes} edges={flow.edges} nodeTypes={nodeTypes} edgeTypes={edgeTypes}
            nodesDraggable={false} nodesConnectable={false} elementsSelectable={false} edgesFocusable={false}
            fitView fitViewOptions={{ padding: 0.2, maxZoom: 1 }}>
            <Background gap={20} />
            <Controls showInteractive={false} />
          </ReactFlow>
        </ReactFlowProvider>
      </CanvasOverlayContext.Provider>
    </div>
  );
}
