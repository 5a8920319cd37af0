'use client';
/** The run's mesh version, read-only, with message counts on each member. */
import { useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import type { CanvasOverlay, MemberCountsView } from '@/components/canvas/overlay';
import { VersionCanvas } from '@/components/versions/version-canvas';
import { errorMessage } from '@/trpc/errors';
import { useTRPC } from '@/trpc/client';
import { MemberCountsTable } from './member-counts-table';

export function RunMesh({ meshId, version, memberCounts }: { meshId: string; version: number; memberCounts: Record<string, MemberCountsView> }) {
  const trpc = useTRPC();
  const mesh = useQuery(trpc.meshes.get.queryOptions({ meshId, version }, { staleTime: Infinity }));
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
          {mesh.data && <VersionCanvas mesh={mesh.data.definition} overlay={overlay} testId="run-mesh-canvas" />}
        </div>
        {mesh.data && <MemberCountsTable members={mesh.data.definition.members} counts={memberCounts} />}
      </div>
    </section>
  );
}
