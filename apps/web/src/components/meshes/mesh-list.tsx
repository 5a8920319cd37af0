'use client';
import { useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { useState } from 'react';
import { AdminTable } from '@/components/ui/admin-table';
import { formatDateTime } from '@/components/ui/format';
import { useTRPC } from '@/trpc/client';
import { ImportMesh, ImportRefused, type ImportRefusal } from './import-mesh';
import { NewMesh } from './new-mesh';
import { Can } from '@/components/ui/access';

export function MeshList() {
  const trpc = useTRPC();
  const meshes = useQuery(trpc.meshes.list.queryOptions());
  const [refusal, setRefusal] = useState<ImportRefusal | null>(null);
  return (
    <section data-testid="mesh-list">
      <div className="mb-6 flex flex-wrap items-end justify-between gap-4">
        <div>
          <h1 className="text-2xl font-semibold tracking-tight">Meshes</h1>
          <p className="text-sm text-slate-600">Each mesh is a versioned graph of members and the channels between them.</p>
        </div>
        <Can rule="design">
          <div className="flex flex-wrap items-start gap-2">
            <NewMesh />
            <ImportMesh onRefused={setRefusal} />
          </div>
        </Can>
      </div>
      {refusal && <ImportRefused refusal={refusal} onClose={() => setRefusal(null)} />}
      <AdminTable
        query={meshes}
        testId="mesh-list"
        loading="Loading meshes…"
        empty="No meshes yet. Create one or import a mesh file."
        hover
        rowKey={(m) => m.id}
        rowTestId={(m) => `mesh-row-${m.name}`}
        columns={[
          {
            header: 'Name',
            cell: (m) => (
              <Link href={`/meshes/${m.id}`} className="font-medium text-sky-700 hover:underline" data-testid={`mesh-link-${m.name}`}>
                {m.name}
              </Link>
            ),
          },
          { header: 'Description', className: 'max-w-md truncate text-slate-600', cell: (m) => <span title={m.description ?? ''}>{m.description ?? '—'}</span> },
          { header: 'Latest version', className: 'text-right tabular-nums', cell: (m) => `v${m.latestVersion}` },
          { header: 'Updated', className: 'text-slate-600', cell: (m) => formatDateTime(m.updatedAt) },
        ]}
      />
    </section>
  );
}
