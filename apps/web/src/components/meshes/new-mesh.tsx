'use client';
import { useMutation } from '@tanstack/react-query';
import { useRouter } from 'next/navigation';
import { useState, type FormEvent } from 'react';
import { buttonClass, inputClass } from '@/components/ui/button';
import { errorMessage } from '@/trpc/errors';
import { useTRPC } from '@/trpc/client';

/** "New mesh": asks for a name, creates an empty mesh and opens its canvas. */
export function NewMesh() {
  const trpc = useTRPC();
  const router = useRouter();
  const [open, setOpen] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const create = useMutation(trpc.meshes.create.mutationOptions());

  async function onSubmit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const value = new FormData(e.currentTarget).get('name');
    const name = typeof value === 'string' ? value.trim() : '';
    setProblem(null);
    try {
      const res = await create.mutateAsync({ name });
      if (res.ok) return router.push(`/meshes/${res.meshId}`);
      setProblem(res.reason === 'conflict' ? `A mesh named “${name}” already exists.` : res.message);
    } catch (err) {
      setProblem(errorMessage(err));
    }
  }

  if (!open) {
    return (
      <button type="button" className={buttonClass.primary} onClick={() => setOpen(true)} data-testid="mesh-new">
        New mesh
      </button>
    );
  }
  return (
    <form onSubmit={(e) => void onSubmit(e)} className="w-72 rounded-lg border border-slate-200 bg-white p-3 shadow-sm" data-testid="mesh-new-form">
      <label className="block text-sm font-medium">
        Name
        <input name="name" required autoFocus pattern="[A-Za-z0-9][A-Za-z0-9_\-]{0,62}" className={`mt-1 ${inputClass}`}
          placeholder="claims-intake" data-testid="mesh-new-name" title="1–63 letters, digits, “-” or “_”" />
      </label>
      <p className="mt-1 text-xs text-slate-500">Letters, digits, “-” and “_”.</p>
      {problem && <p role="alert" className="mt-2 text-sm text-red-700" data-testid="mesh-new-error">{problem}</p>}
      <div className="mt-3 flex justify-end gap-2">
        <button type="button" className={buttonClass.ghost} onClick={() => setOpen(false)}>Cancel</button>
        <button type="submit" className={buttonClass.primary} disabled={create.isPending} data-testid="mesh-new-create">Create</button>
      </div>
    </form>
  );
}
