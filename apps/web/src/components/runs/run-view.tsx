'use client';
/** A run: status and cause on top, progress, counts on the mesh, and the message trail; polls each second until it ends. */
import { useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { formatCount, formatDateTime, formatDuration } from '@/components/ui/format';
import { StatusBadge } from '@/components/ui/status-badge';
import { Missing } from '@/components/ui/missing';
import { errorMessage, isNotFound } from '@/trpc/errors';
import { useTRPC } from '@/trpc/client';
import { MessageTrail } from './message-trail';
import { RunAttempts } from './run-attempts';
import { RunMesh } from './run-mesh';
import { RunOutput } from './run-output';
import { ADMISSION_TONE_CLASS, admissionWords, CANCELLABLE, ENDED } from './run-status';
import { RunCancel } from './run-cancel';
import { RunUrgent } from './run-urgent';
import { RunToolCalls } from './run-tool-calls';
import { RunTimeline } from './run-timeline';
import { CopyId } from './copy-id';
import { plainSentence } from './plain-text';
import { plural } from './timeline-scale';
import { useCan } from '@/components/ui/access';

export function RunView({ runId }: { runId: string }) {
  const trpc = useTRPC();
  const canOperate = useCan('operate');
  const run = useQuery(
    trpc.runs.get.queryOptions({ runId }, { refetchInterval: (q) => (q.state.data && ENDED.has(q.state.data.status) ? false : 1000) }),
  );
  if (run.isError && isNotFound(run.error)) {
    return <Missing title="No such run" detail="There is no run at this address. It may have been mistyped, or belong to another Trellis." href="/runs" linkText="Go to runs" testId="run-not-found" />;
  }
  if (run.isError) return <p role="alert" className="m-6 rounded-md bg-red-50 px-3 py-2 text-sm text-red-700" data-testid="run-error">{errorMessage(run.error)}</p>;
  if (!run.data) return <p className="m-6 text-sm text-slate-500">Loading the run…</p>;
  const r = run.data;
  const ended = ENDED.has(r.status);
  const pct = r.counts.published ? Math.round((r.counts.done / r.counts.published) * 100) : 0;
  return (
    <main className="mx-auto w-full max-w-7xl space-y-6 px-6 py-6" data-testid="run-view" data-status={r.status}>
      <header className="space-y-2">
        <div className="flex flex-wrap items-center gap-3">
          <h1 className="text-xl font-semibold tracking-tight">
            Run of <Link href={`/meshes/${r.meshId}`} className="text-sky-700 hover:underline">{r.meshName}</Link>{' '}
            <span className="text-base font-normal text-slate-500">v{r.meshVersion}</span>
          </h1>
          <StatusBadge status={r.status} testId="run-status" />
          {!ended && <span className="text-xs text-slate-500">updating every second</span>}
          {(r.urgent || CANCELLABLE.has(r.status)) && <RunUrgent runId={r.id} urgent={r.urgent} canOperate={canOperate} />}
          {CANCELLABLE.has(r.status) && canOperate && <RunCancel runId={r.id} />}
        </div>
        <p className="text-sm text-slate-600">
          {r.inputName ? <>Input <span className="font-medium">{r.inputName}</span> · </> : null}
          Started {formatDateTime(r.startedAt ?? r.createdAt)} · {ended ? 'took' : 'running for'} {formatDuration(r.seconds)}
          <span className="ml-2 font-mono text-xs text-slate-600" data-testid="run-id">{r.id}</span><CopyId id={r.id} />
        </p>
        {r.parentRunId && (
          <p className="text-sm text-slate-600" data-testid="run-parent">
            Child run of a nested-mesh member in{' '}
            <Link href={`/runs/${r.parentRunId}`} className="font-mono text-xs text-sky-700 hover:underline">run {r.parentRunId}</Link>
          </p>
        )}
        <CauseLine status={r.status} cause={r.cause} message={r.causeMessage} done={r.counts.done} />
        <AdmissionLine admission={r.admission} line={r.admissionLine} />
        <RunAttempts runId={runId} status={r.status} />
      </header>

      <section className="space-y-2" aria-label="progress">
        <div className="flex justify-between text-sm">
          <span data-testid="run-progress-text">{formatCount(r.counts.done)} of {plural(r.counts.published, 'message')} done</span>
          <span className="tabular-nums text-slate-500">{pct}%</span>
        </div>
        <div className="h-2.5 overflow-hidden rounded-full bg-slate-200" data-testid="run-progress" data-done={r.counts.done} data-published={r.counts.published}
          role="progressbar" aria-label="messages done" aria-valuemin={0} aria-valuemax={r.counts.published} aria-valuenow={r.counts.done}>
          <div className={`h-full transition-all ${r.status === 'failed' ? 'bg-red-500' : r.status === 'stalled' ? 'bg-amber-500' : 'bg-emerald-500'}`} style={{ width: `${pct}%` }} />
        </div>
        <dl className={`grid grid-cols-3 gap-2 text-sm ${r.counts.filtered > 0 ? 'sm:grid-cols-7' : 'sm:grid-cols-6'}`} data-testid="run-counts">
          {([
            ['published', r.counts.published, ''],
            ['delivered', r.counts.delivered, ''],
            ['done', r.counts.done, 'text-emerald-700'],
            ['open', r.counts.pending + r.counts.running + r.counts.parked, 'text-sky-700'],
            ['dead-lettered', r.counts.deadLettered, r.counts.deadLettered ? 'text-red-700' : ''],
            ['lost', r.counts.lost, r.counts.lost ? 'text-red-800' : ''],
            ...(r.counts.filtered > 0 ? ([['filtered', r.counts.filtered, 'text-slate-500']] as const) : []),
          ] as const).map(([label, n, tone]) => (
            <div key={label} className="rounded-md border border-slate-200 bg-white px-3 py-2" data-testid={`run-count-${label}`}>
              <dt className="text-xs text-slate-500">{label}</dt>
              <dd className={`text-lg font-semibold tabular-nums ${tone}`}>{formatCount(n)}</dd>
            </div>
          ))}
        </dl>
      </section>

      {!r.prunedAt && <RunTimeline runId={runId} live={!ended} />}
      <RunMesh meshId={r.meshId} version={r.meshVersion} memberCounts={r.memberCounts} />
      {r.status === 'done' && <RunOutput output={r.output} name={r.inputName} />}
      <RunToolCalls runId={runId} live={!ended} />
      {r.prunedAt ? (
        <p className="rounded-md border border-slate-200 bg-slate-50 px-3 py-2 text-sm text-slate-600" data-testid="run-pruned">
          This run&apos;s message trail was pruned on {formatDateTime(r.prunedAt)} by the retention policy; its counts, output and cause are kept.
        </p>
      ) : (
        <MessageTrail runId={runId} live={!ended} />
      )}
    </main>
  );
}

function CauseLine({ status, cause, message, done }: { status: string; cause: string | null; message: string | null; done: number }) {
  if (status === 'done') {
    return <p className="rounded-md border border-emerald-200 bg-emerald-50 px-3 py-2 text-sm text-emerald-900" data-testid="run-cause">Finished: {done === 1 ? 'the 1 message is done' : `all ${plural(done, 'message')} are done`}; none dead-lettered or lost.</p>;
  }
  if (status === 'cancelled') {
    return <p className="rounded-md border border-slate-300 bg-slate-50 px-3 py-2 text-sm text-slate-800" data-testid="run-cause">{message ?? 'Cancelled.'}</p>;
  }
  if (status === 'failed' || status === 'stalled') {
    // The sentence stays plain; a stack trace or further lines of detail are one click away.
    const plain = message ? plainSentence(message) : { sentence: status === 'stalled' ? 'Nothing has moved for a while.' : 'The run failed.', more: false };
    return (
      <div className="rounded-md border border-red-200 bg-red-50 px-3 py-2 text-sm text-red-900">
        <p data-testid="run-cause" data-cause={cause ?? ''}>
          {plain.sentence}
          {cause && <span className="ml-2 rounded bg-white/70 px-1 font-mono text-xs">{cause}</span>}
        </p>
        {plain.more && message && (
          <details className="mt-1" data-testid="run-cause-details">
            <summary className="cursor-pointer text-xs text-red-800">Details</summary>
            <pre className="mt-1 max-h-64 overflow-auto whitespace-pre-wrap rounded bg-white/70 p-2 font-mono text-xs">{message}</pre>
          </details>
        )}
      </div>
    );
  }
  return <p className="text-sm text-slate-600" data-testid="run-cause">{status === 'queued' ? 'Waiting to start.' : 'Working through the mesh…'}</p>;
}

/**
 * The admission verdict in words (engine runs/admission.ts): `Runs now: …`, the wait (behind what,
 * for which resource, an estimate) while it waits, how long it waited once it started, or the cap
 * that refused it. Nothing for runs from before admission.
 */
function AdmissionLine({ admission, line }: { admission: { verdict: string; sentence: string } | null; line: string | null }) {
  const words = admissionWords(admission, line);
  if (!words) return null;
  return (
    <p className={`text-sm ${ADMISSION_TONE_CLASS[words.tone]}`} data-testid="run-admission" data-verdict={words.verdict}>
      {words.text}
    </p>
  );
}
