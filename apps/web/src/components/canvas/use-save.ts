'use client';
/**
 * Saving: each save names the version it started from; the server refuses a stale base as a conflict,
 * so two editors never overwrite each other. Tracks whether the canvas differs from what was saved.
 */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import type { Finding } from '@trellis/mesh/findings';
import type { Mesh } from '@trellis/mesh/schema';
import { errorMessage } from '@/trpc/errors';
import { useTRPC } from '@/trpc/client';

export type SaveOutcome =
  | { kind: 'saved'; version: number; unchanged: boolean }
  | { kind: 'conflict'; latestVersion: number | undefined }
  | { kind: 'refused'; message: string; findings: Finding[] }
  | { kind: 'error'; message: string };

export function useSave(meshId: string, initialVersion: number, mesh: Mesh) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [baseVersion, setBaseVersion] = useState(initialVersion);
  const [savedText, setSavedText] = useState(() => JSON.stringify(mesh));
  const [outcome, setOutcome] = useState<SaveOutcome | null>(null);
  const mutation = useMutation(trpc.meshes.save.mutationOptions());
  const text = JSON.stringify(mesh);

  /** Saves the canvas as a new version; resolves true when the server took it. */
  async function save(): Promise<boolean> {
    setOutcome(null);
    try {
      const res = await mutation.mutateAsync({ meshId, baseVersion, definition: mesh });
      if (res.ok) {
        setBaseVersion(res.version);
        setSavedText(text);
        setOutcome({ kind: 'saved', version: res.version, unchanged: res.unchanged });
        await queryClient.invalidateQueries(trpc.meshes.list.queryFilter());
        return true;
      } else if (res.reason === 'conflict') {
        setOutcome({ kind: 'conflict', latestVersion: res.latestVersion });
      } else {
        setOutcome({ kind: 'refused', message: res.message, findings: res.findings });
      }
    } catch (err) {
      setOutcome({ kind: 'error', message: errorMessage(err) });
    }
    return false;
  }

  /** Takes the canvas as it is now as the saved state (the layout placed on open is not an edit). */
  const rebase = () => setSavedText(text);

  return { baseVersion, dirty: text !== savedText, outcome, saving: mutation.isPending, save, rebase, dismiss: () => setOutcome(null) };
}
