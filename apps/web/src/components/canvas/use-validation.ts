'use client';
/**
 * Server validation of what the canvas shows, ~300 ms after the last change. Moving members does
 * not count as a change (layout is not logic). The previous findings stay up while a check runs.
 */
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useEffect, useMemo, useState } from 'react';
import type { Finding } from '@trellis/mesh/findings';
import type { Mesh } from '@trellis/mesh/schema';
import { errorMessage } from '@/trpc/errors';
import { useTRPC } from '@/trpc/client';
import { logicOf } from './mappers';

const DEBOUNCE_MS = 300;

export interface Validation {
  findings: Finding[];
  /** False when the file as drawn could not even be read (e.g. a bad id); findings say why. */
  readable: boolean;
  checking: boolean;
  /** Set when the check itself failed (server unreachable), not when the mesh has findings. */
  problem: string | null;
}

export function useValidation(mesh: Mesh): Validation {
  const trpc = useTRPC();
  const text = useMemo(() => JSON.stringify(logicOf(mesh)), [mesh]);
  const [settled, setSettled] = useState(text);
  useEffect(() => {
    const t = setTimeout(() => setSettled(text), DEBOUNCE_MS);
    return () => clearTimeout(t);
  }, [text]);
  const definition = useMemo(() => JSON.parse(settled) as unknown, [settled]);
  const query = useQuery(
    trpc.meshes.validate.queryOptions({ definition }, { placeholderData: keepPreviousData, staleTime: Infinity }),
  );
  return {
    findings: query.data?.findings ?? [],
    readable: query.data?.readable ?? true,
    checking: query.isFetching || settled !== text,
    problem: query.isError ? errorMessage(query.error) : null,
  };
}
