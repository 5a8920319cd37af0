'use client';
/** The canvas page: loads the mesh, then hands it to the editor; a reload remounts it on the latest version. */
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Missing } from '@/components/ui/missing';
import { errorMessage, isNotFound } from '@/trpc/errors';
import { useTRPC } from '@/trpc/client';
import { Editor } from './editor';

export function MeshEditor({ meshId }: { meshId: string }) {
  const trpc = useTRPC();
  const [loadCount, setLoadCount] = useState(0);
  const mesh = useQuery(trpc.meshes.get.queryOptions({ meshId }, { staleTime: Infinity }));
  const names = useQuery(trpc.meshes.list.queryOptions());
  if (mesh.isError && isNotFound(mesh.error)) {
    return <Missing title="No such mesh" detail="There is no mesh at this address. It may have been mistyped, or belong to another Trellis." href="/meshes" linkText="Go to meshes" testId="mesh-not-found" />;
  }
  if (mesh.isError) {
    return <p role="alert" className="m-6 rounded-md bg-red-50 px-3 py-2 text-sm text-red-700" data-testid="mesh-load-error">{errorMessage(mesh.error)}</p>;
  }
  if (!mesh.data) return <p className="m-6 text-sm text-slate-500">Loading the mesh…</p>;
  return (
    <Editor
      key={`${mesh.data.version}-${loadCount}`}
      meshId={meshId}
      version={mesh.data.version}
      initial={mesh.data.definition}
      meshNames={names.data?.map((m) => m.name) ?? []}
      onReload={async () => {
        await mesh.refetch();
        setLoadCount((n) => n + 1);
      }}
    />
  );
}
