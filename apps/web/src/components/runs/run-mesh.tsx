'use client';
/** The run's mesh version, read-only, with message counts on each member. */
import { useQuery } from '@tanstack/react-query';
import { Background, Controls, ReactFlow, ReactFlowProvider } from '@xyflow/react';
import { useMemo } from 'react';
import { ArrowMarkers } from '@/components/canvas/channel-edge';
import { meshToFlow } from '@/components/canvas/mappers';
import { edgeTypes, nodeTypes } from '@/components/canvas/node-types';
import { CanvasOverlayContext, type CanvasOverlay, type MemberCountsView } from '@/components/canvas/overlay';
import { errorMessage } from '@/trpc/errors';
import { useTRPC } from '@/trpc/client';
import { MemberCountsTable } from './member-counts-table';

export function RunMesh({ meshId, version, memberCounts }: { meshId: string; version: number; memberCounts: Record<string, MemberCountsView> }) {
  const trpc = useTRPC();
  const mesh = useQuery(trpc.meshes.get.queryOptions({ meshId, version }, { staleTime: Infinity }));
  const flow = useMemo(() => (mesh.data ? meshToFlow(mesh.data.definition) : null), [mesh.data]);
  const overlay: CanvasOverlay = useMemo(
    () => ({ findingsByMember: new Map(), findingsByChannel: new Map(), counts: memberCounts, readOnly: true }),
    [memberCounts],
  );
  return (
    <section className="space-y-2" aria-label="mesh">
      <h2 className="text-sm font-semibold">Messages per member</h2>
      <div className="grid gap-4 lg:grid-cols-5">
        <div className="h-[32rem] overflow-hidden rounded-lg border border-slate-200 bg-white lg:col-span-3" data-testid="run-mesh">
          {mesh.isError && <p className="p-4 text-sm text-red-700">{errorMessage(mesh.error)}</p>}
          {flow && (
            <CanvasOverlayContext.Provider value={overlay}>
              <ReactFlowProvider>
                <ArrowMarkers />
                <ReactFlow nodes={flow.nodes} edges={flow.edges} nodeTypes={nodeTypes} edgeTypes={edgeTypes}
                  nodesDraggable={false} nodesConnectable={false} elementsSelectable={false} edgesFocusable={false}
                  fitView fitViewOptions={{ padding: 0.15, maxZoom: 1 }}>
                  <Background gap={20} />
                  <Controls showInteractive={false} />
                </ReactFlow>
              </ReactFlowProvider>
            </CanvasOverlayContext.Provider>
          )}
        </div>
        {mesh.data && <MemberCountsTable members={mesh.data.definition.members} counts={memberCounts} />}
      </div>
    </section>
  );
}
