'use client';
/**
 * A mesh's version history: every saved version with who saved it and when; open any one read-only,
 * compare two (the diff drawn on the canvas and listed beside it), and restore an old one as a new
 * version (designers and admins). What is shown lives in the URL (`?v=3`, `?from=2&to=3`).
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import Link from 'next/link';
import { useCallback, useMemo, useState } from 'react';
import { buttonClass, inputClass } from '@/components/ui/button';
import { useCan } from '@/components/ui/access';
import { formatDateTime } from '@/components/ui/format';
import { Missing } from '@/components/ui/missing';
import { useQueryState } from '@/components/ui/use-query-state';
import { errorMessage, isNotFound } from '@/trpc/errors';
import { useTRPC } from '@/trpc/client';
import { DiffList } from './diff-list';
import { diffCanvas, diffMeshes } from './mesh-diff';
import { VersionCanvas } from './version-canvas';

/** What the page shows: one version, or the change from one to another (0 = not chosen: the latest). */
export interface HistoryView {
  v: number;
  from: number;
  to: number;
}

const positive = (s: string | null): number => {
  const n = Number(s);
  return Number.isInteger(n) && n > 0 ? n : 0;
};
const parseView = (p: URLSearchParams): HistoryView => ({ v: positive(p.get('v')), from: positive(p.get('from')), to: positive(p.get('to')) });
const formatView = (h: HistoryView): string =>
  h.from && h.to ? `from=${h.from}&to=${h.to}` : h.v ? `v=${h.v}` : '';

export function VersionHistory({ meshId }: { meshId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const canDesign = useCan('design');
  const [view, setView] = useQueryState(parseView, formatView);
  const [note, setNote] = useState<{ tone: 'ok' | 'error'; text: string } | null>(null);
  const versions = useQuery(trpc.meshes.versions.queryOptions({ meshId }));
  const latest = versions.data?.[0]?.version ?? 0;
  const comparing = view.from > 0 && view.to > 0;
  const shown = comparing ? view.to : view.v || latest;
  const restore = useMutation(trpc.meshes.restore.mutationOptions());

  const onRestore = useCallback(
    async (version: number) => {
      setNote(null);
      try {
        const res = await restore.mutateAsync({ meshId, version, baseVersion: latest });
        if (!res.ok) return setNote({ tone: 'error', text: `Not restored: ${res.message}` });
        setNote({ tone: 'ok', text: res.unchanged ? `v${version} is the same as the latest version; nothing was saved.` : `Restored v${version} as v${res.version}.` });
        await queryClient.invalidateQueries({ queryKey: trpc.meshes.pathKey() });
        if (!res.unchanged) setView({ v: 0, from: version, to: res.version });
      } catch (err) {
        setNote({ tone: 'error', text: errorMessage(err) });
      }
    },
    [restore, meshId, latest, queryClient, trpc, setView],
  );

  if (versions.isError && isNotFound(versions.error)) {
    return <Missing title="No such mesh" detail="There is no mesh at this address." href="/meshes" linkText="Go to meshes" testId="mesh-not-found" />;
  }
  return (
    <main className="mx-auto flex w-full max-w-7xl flex-1 flex-col gap-4 px-6 py-6" data-testid="version-history">
      <header className="flex flex-wrap items-center gap-3">
        <h1 className="text-xl font-semibold tracking-tight">Version history</h1>
        <Link href={`/meshes/${meshId}`} className="text-sm text-sky-700 hover:underline" data-testid="history-back">Back to the editor</Link>
        {note && (
          <p role="status" data-testid="history-note"
            className={`rounded-md px-3 py-1 text-sm ${note.tone === 'ok' ? 'bg-emerald-50 text-emerald-800' : 'bg-red-50 text-red-700'}`}>{note.text}</p>
        )}
      </header>
      {versions.isError && <p role="alert" className="text-sm text-red-700">{errorMessage(versions.error)}</p>}
      <div className="grid min-h-0 flex-1 gap-4 lg:grid-cols-[22rem_1fr]">
        <section aria-label="versions" className="space-y-3">
          {versions.data && versions.data.length > 1 && (
            <CompareForm versions={versions.data.map((v) => v.version)} view={view} latest={latest} onCompare={(from, to) => setView({ v: 0, from, to })} />
          )}
          <ol className="divide-y divide-slate-100 rounded-lg border border-slate-200 bg-white" data-testid="version-list">
            {versions.data?.map((v) => {
              const active = comparing ? v.version === view.from || v.version === view.to : v.version === shown;
              return (
                <li key={v.version} className={`space-y-1 px-3 py-2 text-sm ${active ? 'bg-sky-50' : ''}`} data-testid={`version-${v.version}`}>
                  <div className="flex items-center gap-2">
                    <span className="font-semibold tabular-nums">v{v.version}</span>
                    {v.version === latest && <span className="rounded bg-slate-100 px-1.5 text-xs text-slate-600">latest</span>}
                    <span className="ml-auto text-xs text-slate-500">{v.members} {v.members === 1 ? 'member' : 'members'}, {v.channels} {v.channels === 1 ? 'channel' : 'channels'}</span>
                  </div>
                  <p className="text-slate-600">
                    <span data-testid="version-by">{v.savedBy ?? 'unknown'}</span> · <time dateTime={v.savedAt.toISOString()}>{formatDateTime(v.savedAt)}</time>
                  </p>
                  <div className="flex flex-wrap gap-1">
                    <button type="button" className={buttonClass.ghost} onClick={() => setView({ v: v.version, from: 0, to: 0 })} data-testid="version-open">Open</button>
                    {v.version > 1 && (
                      <button type="button" className={buttonClass.ghost} onClick={() => setView({ v: 0, from: v.version - 1, to: v.version })} data-testid="version-diff-previous">
                        Changes from v{v.version - 1}
                      </button>
                    )}
                    {canDesign && v.version !== latest && (
                      <button type="button" className={buttonClass.secondary} disabled={restore.isPending} onClick={() => void onRestore(v.version)} data-testid="version-restore">
                        Restore as new version
                      </button>
                    )}
                  </div>
                </li>
              );
            })}
          </ol>
        </section>
        <section aria-label={comparing ? 'changes' : 'version'} className="flex min-h-0 flex-col gap-3">
          {comparing ? <DiffView meshId={meshId} from={view.from} to={view.to} /> : shown > 0 && <SingleView meshId={meshId} version={shown} />}
        </section>
      </div>
    </main>
  );
}

function CompareForm({ versions, view, latest, onCompare }: { versions: number[]; view: HistoryView; latest: number; onCompare: (from: number, to: number) => void }) {
  const [from, setFrom] = useState(view.from || Math.max(1, latest - 1));
  const [to, setTo] = useState(view.to || latest);
  const pick = (label: string, value: number, set: (n: number) => void, testId: string) => (
    <label className="text-sm">
      <span className="sr-only">{label}</span>
      <select className={`${inputClass} w-20`} value={value} onChange={(e) => set(Number(e.target.value))} data-testid={testId} aria-label={label}>
        {versions.map((n) => <option key={n} value={n}>v{n}</option>)}
      </select>
    </label>
  );
  return (
    <form className="flex items-center gap-2 text-sm" onSubmit={(e) => { e.preventDefault(); onCompare(from, to); }} data-testid="compare-form">
      <span className="text-slate-600">Compare</span>
      {pick('older version', from, setFrom, 'compare-from')}
      <span aria-hidden>→</span>
      {pick('newer version', to, setTo, 'compare-to')}
      <button type="submit" className={buttonClass.secondary} disabled={from === to} data-testid="compare-go">Show changes</button>
    </form>
  );
}

function SingleView({ meshId, version }: { meshId: string; version: number }) {
  const trpc = useTRPC();
  const mesh = useQuery(trpc.meshes.get.queryOptions({ meshId, version }, { staleTime: Infinity }));
  if (mesh.isError) return <p role="alert" className="text-sm text-red-700">{errorMessage(mesh.error)}</p>;
  if (!mesh.data) return <p className="text-sm text-slate-500">Loading v{version}…</p>;
  return (
    <>
      <h2 className="text-sm font-semibold" data-testid="history-shown">
        {mesh.data.name} v{version} <span className="font-normal text-slate-500">(read only)</span>
      </h2>
      <div className="min-h-0 flex-1"><VersionCanvas key={`v${version}`} mesh={mesh.data.definition} testId="version-canvas" /></div>
    </>
  );
}

function DiffView({ meshId, from, to }: { meshId: string; from: number; to: number }) {
  const trpc = useTRPC();
  const before = useQuery(trpc.meshes.get.queryOptions({ meshId, version: from }, { staleTime: Infinity }));
  const after = useQuery(trpc.meshes.get.queryOptions({ meshId, version: to }, { staleTime: Infinity }));
  const drawn = useMemo(() => {
    if (!before.data || !after.data) return null;
    const a = before.data.definition;
    const b = after.data.definition;
    return { diff: diffMeshes(a, b), canvas: diffCanvas(a, b) };
  }, [before.data, after.data]);
  const failed = before.error ?? after.error;
  if (failed) return <p role="alert" className="text-sm text-red-700">{errorMessage(failed)}</p>;
  if (!drawn) return <p className="text-sm text-slate-500">Loading v{from} and v{to}…</p>;
  return (
    <>
      <h2 className="text-sm font-semibold" data-testid="history-shown">Changes from v{from} to v{to}</h2>
      <div className="grid min-h-0 flex-1 gap-3 xl:grid-cols-[1fr_18rem]">
        <VersionCanvas key={`d${from}-${to}`} mesh={drawn.canvas.mesh} memberState={drawn.canvas.memberState} channelState={drawn.canvas.channelState} testId="diff-canvas" />
        <DiffList diff={drawn.diff} from={from} to={to} />
      </div>
    </>
  );
}
