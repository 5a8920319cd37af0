'use client';
/** The run's messages in publishing order: member, seq, depth, status, attempts and error; a page at a time. */
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { useEffect, useRef, useState } from 'react';
import { inputClass } from '@/components/ui/button';
import { Pager } from '@/components/ui/pager';
import { StatusBadge } from '@/components/ui/status-badge';
import { errorMessage } from '@/trpc/errors';
import { useTRPC } from '@/trpc/client';
import { MESSAGE_STATUS_OPTIONS, shortId } from './run-status';
import { plainSentence } from './plain-text';

const PAGE = 50;

export function MessageTrail({ runId, live }: { runId: string; live: boolean }) {
  const trpc = useTRPC();
  const [status, setStatus] = useState<(typeof MESSAGE_STATUS_OPTIONS)[number] | ''>('');
  const [page, setPage] = useState(0);
  const messages = useQuery(
    trpc.runs.messages.queryOptions(
      { runId, ...(status ? { status } : {}), limit: PAGE, offset: page * PAGE },
      { placeholderData: keepPreviousData, refetchInterval: live ? 2000 : false },
    ),
  );
  // Polling stops when the run ends; fetch once more so the trail shows the final statuses.
  const { refetch } = messages;
  const wasLive = useRef(live);
  useEffect(() => {
    if (wasLive.current && !live) void refetch();
    wasLive.current = live;
  }, [live, refetch]);
  return (
    <section className="space-y-2" data-testid="message-trail">
      <div className="flex items-end justify-between gap-4">
        <h2 className="text-sm font-semibold">Message trail</h2>
        <label className="text-sm">
          <span className="mr-2 text-slate-600">Status</span>
          <select className={`${inputClass} inline-block w-36`} value={status} data-testid="messages-filter-status"
            onChange={(e) => { setStatus(e.target.value as typeof status); setPage(0); }}>
            <option value="">All</option>
            {MESSAGE_STATUS_OPTIONS.map((s) => <option key={s} value={s}>{s}</option>)}
          </select>
        </label>
      </div>
      {messages.isError && <p role="alert" className="text-sm text-red-700">{errorMessage(messages.error)}</p>}
      {messages.data?.total === 0 && <p className="text-sm text-slate-500">No messages{status ? ` with status ${status}` : ''}.</p>}
      {messages.data && messages.data.items.length > 0 && (
        <div className="overflow-x-auto rounded-lg border border-slate-200 bg-white">
          <table className="w-full text-left text-sm">
            <thead className="border-b border-slate-200 bg-slate-50 text-xs uppercase tracking-wide text-slate-500">
              <tr>
                <th className="px-3 py-2 font-medium">Member</th>
                <th className="px-3 py-2 text-right font-medium">Seq</th>
                <th className="px-3 py-2 text-right font-medium">Depth</th>
                <th className="px-3 py-2 font-medium">Status</th>
                <th className="px-3 py-2 text-right font-medium">Attempts</th>
                <th className="px-3 py-2 font-medium">Error</th>
                <th className="px-3 py-2 font-medium">Message</th>
              </tr>
            </thead>
            <tbody>
              {messages.data.items.map((m) => (
                <tr key={m.id} className="border-b border-slate-100 last:border-0" data-testid="message-row" data-status={m.status}>
                  <td className="px-3 py-1.5 font-mono text-xs">{m.member}</td>
                  <td className="px-3 py-1.5 text-right tabular-nums">{m.seq}</td>
                  <td className="px-3 py-1.5 text-right tabular-nums">{m.depth}</td>
                  <td className="px-3 py-1.5">
                    <StatusBadge status={m.status} />
                    {m.status === 'parked' && (
                      <span className="ml-1 text-xs text-slate-500" data-testid="message-parked" title="Waiting for an outside service or a child run; no worker is held">
                        {m.serviceJob ? (m.serviceJob.status === 'claimed' ? `claimed${m.serviceJob.claimedBy ? ` by ${m.serviceJob.claimedBy}` : ''}` : `job ${m.serviceJob.status}`) : 'waiting'}
                      </span>
                    )}
                    {m.childRunId && (
                      <Link href={`/runs/${m.childRunId}`} className="ml-2 text-xs text-sky-700 hover:underline" data-testid="message-child-run">child run</Link>
                    )}
                  </td>
                  <td className="px-3 py-1.5 text-right tabular-nums">{m.attempts}</td>
                  <td className={`max-w-md px-3 py-1.5 ${m.status === 'filtered' ? 'text-slate-500' : 'text-red-700'}`}>{m.error ? <ErrorText text={m.error} /> : <span className="text-slate-500">—</span>}</td>
                  <td className="px-3 py-1.5 font-mono text-xs text-slate-600" title={m.id}>{shortId(m.id)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {messages.data && <Pager page={page} size={PAGE} total={messages.data.total} onPage={setPage} testId="messages-pager" />}
    </section>
  );
}

/** An error as a plain sentence, with the full text (a stack trace, more lines) one click away. */
function ErrorText({ text }: { text: string }) {
  const plain = plainSentence(text);
  if (!plain.more) return <>{text}</>;
  return (
    <details data-testid="message-error-details">
      <summary className="cursor-pointer">{plain.sentence}</summary>
      <pre className="mt-1 max-h-48 overflow-auto whitespace-pre-wrap font-mono text-xs text-slate-700">{text}</pre>
    </details>
  );
}
