'use client';
/**
 * Listens to /api/events (Server-Sent Events fed from the engine's Redis pub/sub) and refetches the
 * queries of the Runs tab, run pages, the exceptions feed and the Action Center when something moved.
 * Bursts are coalesced to one refetch per 300 ms. Shows a small dot: green while connected.
 */
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { useTRPC } from '@/trpc/client';

const COALESCE_MS = 300;

export function LiveUpdates() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [state, setState] = useState<'connecting' | 'live' | 'offline'>('connecting');
  useEffect(() => {
    const source = new EventSource('/api/events');
    let timer: ReturnType<typeof setTimeout> | undefined;
    const refetch = () => {
      timer = undefined;
      for (const filter of [trpc.runs.pathFilter(), trpc.exceptions.pathFilter(), trpc.actions.pathFilter()]) {
        void queryClient.invalidateQueries(filter);
      }
    };
    source.addEventListener('ready', () => setState('live'));
    source.addEventListener('trellis', () => {
      timer ??= setTimeout(refetch, COALESCE_MS);
    });
    source.onerror = () => setState('offline');
    source.onopen = () => setState('live');
    return () => {
      if (timer) clearTimeout(timer);
      source.close();
    };
  }, [trpc, queryClient]);
  const colour = state === 'live' ? 'bg-emerald-500' : state === 'offline' ? 'bg-red-400' : 'bg-slate-300';
  const title = state === 'live' ? 'Live: pages update as runs move' : state === 'offline' ? 'Live updates lost; reconnecting' : 'Connecting live updates';
  return <span className={`inline-block h-2 w-2 rounded-full ${colour}`} title={title} data-testid="live-status" data-state={state} />;
}
