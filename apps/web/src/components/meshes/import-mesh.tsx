'use client';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useRouter } from 'next/navigation';
import { useRef, type ChangeEvent } from 'react';
import type { Finding } from '@trellis/mesh/findings';
import { buttonClass } from '@/components/ui/button';
import { FindingsList } from '@/components/ui/findings-list';
import { errorFindings, errorMessage } from '@/trpc/errors';
import { useTRPC } from '@/trpc/client';

export interface ImportRefusal {
  message: string;
  findings: Finding[];
}

/** "Import mesh file": uploads a .json; any error refuses the whole file and lists the findings. */
export function ImportMesh({ onRefused }: { onRefused: (r: ImportRefusal | null) => void }) {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const input = useRef<HTMLInputElement>(null);
  const importMesh = useMutation(trpc.meshes.import.mutationOptions());

  async function onFile(e: ChangeEvent<HTMLInputElement>) {
    const file = e.target.files?.[0];
    e.target.value = '';
    if (!file) return;
    onRefused(null);
    try {
      const res = await importMesh.mutateAsync({ text: await file.text() });
      if (res.ok) {
        await queryClient.invalidateQueries(trpc.meshes.list.queryFilter());
        return router.push(`/meshes/${res.meshId}`);
      }
      const message = res.reason === 'conflict'
        ? `${file.name} was not imported: a mesh with its name already exists. Open that mesh and use Import on its canvas to replace it.`
        : `${file.name} was refused; nothing was saved.`;
      onRefused({ message, findings: res.findings });
    } catch (err) {
      onRefused({ message: errorMessage(err), findings: errorFindings(err) });
    }
  }

  return (
    <>
      <button type="button" className={buttonClass.secondary} onClick={() => input.current?.click()} disabled={importMesh.isPending} data-testid="mesh-import">
        {importMesh.isPending ? 'Importing…' : 'Import mesh file'}
      </button>
      <input ref={input} type="file" accept=".json,application/json" className="hidden" onChange={(e) => void onFile(e)} data-testid="mesh-import-file" />
    </>
  );
}

/** Why an import was refused, with every finding, shown under the page header. */
export function ImportRefused({ refusal, onClose }: { refusal: ImportRefusal; onClose: () => void }) {
  return (
    <div role="alert" className="mb-6 rounded-lg border border-red-200 bg-white p-4" data-testid="mesh-import-refused">
      <div className="mb-2 flex items-start justify-between gap-2">
        <p className="text-sm font-medium text-red-800">{refusal.message}</p>
        <button type="button" className="text-lg leading-none text-slate-400 hover:text-slate-700" onClick={onClose} aria-label="Close">×</button>
      </div>
      <FindingsList findings={refusal.findings} />
    </div>
  );
}
