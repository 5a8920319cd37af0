'use client';
/** The drawing surface: members, channels, drop target for the palette. */
import { Background, Controls, MiniMap, ReactFlow, useReactFlow, type IsValidConnection } from '@xyflow/react';
import type { DragEvent } from 'react';
import { MEMBER_KINDS, type MemberKind } from '@trellis/mesh/schema';
import { ArrowMarkers } from './channel-edge';
import { edgeTypes, nodeTypes } from './node-types';
import { DRAG_TYPE } from './palette';
import { FIT } from './use-open-layout';
import type { ChannelEdge } from './types';
import type { MeshEditor } from './use-mesh-editor';

export function EditorCanvas({ editor, readOnly, onDropKind }: { editor: MeshEditor; readOnly: boolean; onDropKind: (kind: MemberKind, at: { x: number; y: number }) => void }) {
  const flow = useReactFlow();
  const onDragOver = (e: DragEvent) => {
    if (readOnly || !e.dataTransfer.types.includes(DRAG_TYPE)) return;
    e.preventDefault();
    e.dataTransfer.dropEffect = 'move';
  };
  const onDrop = (e: DragEvent) => {
    const kind = e.dataTransfer.getData(DRAG_TYPE);
    if (readOnly || !(MEMBER_KINDS as readonly string[]).includes(kind)) return;
    e.preventDefault();
    onDropKind(kind as MemberKind, flow.screenToFlowPosition({ x: e.clientX - 100, y: e.clientY - 30 }));
  };
  const isValidConnection: IsValidConnection<ChannelEdge> = (c) => editor.canConnect(c);
  return (
    <div className="relative h-full w-full" data-testid="canvas" onDragOver={onDragOver} onDrop={onDrop}>
      <ArrowMarkers />
      <ReactFlow
        nodes={editor.nodes}
        edges={editor.edges}
        nodeTypes={nodeTypes}
        edgeTypes={edgeTypes}
        onNodesChange={editor.onNodesChange}
        onEdgesChange={editor.onEdgesChange}
        onConnect={readOnly ? undefined : editor.connect}
        isValidConnection={isValidConnection}
        nodesDraggable={!readOnly}
        nodesConnectable={!readOnly}
        deleteKeyCode={readOnly ? null : ['Backspace', 'Delete']}
        fitView
        fitViewOptions={FIT}
        minZoom={FIT.minZoom}
      >
        <Background gap={20} />
        <Controls showInteractive={false} />
        <MiniMap pannable zoomable className="hidden! md:block!" />
      </ReactFlow>
      {editor.nodes.length === 0 && (
        <p className="pointer-events-none absolute inset-0 flex items-center justify-center text-sm text-slate-500" data-testid="canvas-empty">
          Drag a member from the left, or click one, to start.
        </p>
      )}
    </div>
  );
}
