'use client';
import { useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { useState } from 'react';
import { formatDateTime } from '@/components/ui/format';
import { errorMessage } from '@/trpc/errors';
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
      {meshes.isError && <p role="alert" className="rounded-md bg-red-50 px-3 py-2 text-sm text-red-700">{errorMessage(meshes.error)}</p>}
      {meshes.isPending && <p className="text-sm text-slate-500">Loading meshes…</p>}
      {meshes.data?.length === 0 && <p className="text-sm text-slate-500" data-testid="mesh-list-empty">No meshes yet. Create one or import a mesh file.</p>}
      {meshes.data && meshes.data.length > 0 && (
        <div className="overflow-hidden rounded-lg border border-slate-200 bg-white">
          <table className="w-full text-left text-sm">
            <thead className="border-b border-slate-200 bg-slate-50 text-xs uppercase tracking-wide text-slate-500">
              <tr>
                <th className="px-4 py-2 font-medium">Name</th>
                <th className="px-4 py-2 font-medium">Description</th>
                <th className="px-4 py-2 text-right font-medium">Latest version</th>
                <th className="px-4 py-2 font-medium">Updated</th>
              </tr>
            </thead>
            <tbody>
              {meshes.data.map((m) => (
                <tr key={m.id} className="border-b border-slate-100 last:border-0 hover:bg-slate-50" data-testid={`mesh-row-${m.name}`}>
                  <td className="px-4 py-2.5">
                    <Link href={`/meshes/${m.id}`} className="font-medium text-sky-700 hover:underline" data-testid={`mesh-link-${m.name}`}>
                      {m.name}
                    </Link>
                  </td>
                  <td className="max-w-md truncate px-4 py-2.5 text-slate-600" title={m.description ?? ''}>{m.description ?? '—'}</td>
                  <td className="px-4 py-2.5 text-right tabular-nums">v{m.latestVersion}</td>
                  <td className="px-4 py-2.5 text-slate-600">{formatDateTime(m.updatedAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
