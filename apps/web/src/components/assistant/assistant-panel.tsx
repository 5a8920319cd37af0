'use client';
/**
 * The assistant's chat panel, on every signed-in page behind a toggle button in the top bar. Each question goes to
 * assistant.ask; a re-open comes back as a proposal stating exactly what would happen, and only an
 * explicit "yes" (typed, or the Yes button) sent with that proposal's token carries it out. Any
 * other message drops the proposal.
 */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { buttonClass, inputClass } from '@/components/ui/button';
import { errorMessage } from '@/trpc/errors';
import { useTRPC } from '@/trpc/client';

interface Line {
  who: 'you' | 'trellis';
  text: string;
}

const EXAMPLES = ['What broke today?', 'Is anything stalled?', 'Were any messages lost?', 'What is waiting for approval?'];

export function AssistantPanel() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [open, setOpen] = useState(false);
  const [lines, setLines] = useState<Line[]>([]);
  const [draft, setDraft] = useState('');
  const [token, setToken] = useState<string | undefined>(undefined);
  const ask = useMutation(
    trpc.assistant.ask.mutationOptions({
      onSuccess: (reply) => {
        setLines((l) => [...l, { who: 'trellis', text: reply.answer }]);
        setToken(reply.proposal?.token);
        if (reply.intent === 'confirm') void queryClient.invalidateQueries({ queryKey: trpc.runs.pathKey() });
      },
      onError: (err) => setLines((l) => [...l, { who: 'trellis', text: errorMessage(err) }]),
    }),
  );

  function send(question: string) {
    const q = question.trim();
    if (!q || ask.isPending) return;
    setLines((l) => [...l, { who: 'you', text: q }]);
    setDraft('');
    // The token goes with the very next message only; the server acts on it only for a plain "yes".
    // The browser's zone: the asker's today is the viewer's local day, as on the exceptions feed and the Runs tab.
    ask.mutate({ question: q, timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone, ...(token ? { confirmToken: token } : {}) });
    setToken(undefined);
  }

  function onSubmit(e: FormEvent) {
    e.preventDefault();
    send(draft);
  }

  return (
    <>
      <button type="button" onClick={() => setOpen((o) => !o)} aria-expanded={open} data-testid="assistant-toggle"
        title={open ? 'Close the assistant' : 'Ask Trellis: what broke, why a run failed'}
        className="whitespace-nowrap rounded-full bg-slate-900 px-2.5 py-1 text-xs font-medium text-white hover:bg-slate-700">
        {open ? 'Close' : 'Ask'}
      </button>
      {open && (
        <aside aria-label="Assistant" data-testid="assistant-panel"
          className="fixed right-4 top-14 z-40 flex h-[28rem] w-[26rem] max-w-[calc(100vw-2rem)] flex-col rounded-lg border border-slate-200 bg-white shadow-xl">
          <div className="border-b border-slate-200 px-3 py-2 text-sm font-semibold">Assistant</div>
          <ol className="flex-1 space-y-2 overflow-auto px-3 py-2 text-sm" data-testid="assistant-log">
            {lines.length === 0 && (
              <li className="space-y-1 text-slate-500">
                <p>Ask what broke, why a run failed, or have failed runs re-opened.</p>
                <div className="flex flex-wrap gap-1">
                  {EXAMPLES.map((q) => (
                    <button key={q} type="button" className="rounded border border-slate-200 px-1.5 py-0.5 text-xs hover:bg-slate-50" onClick={() => send(q)}>{q}</button>
                  ))}
                </div>
              </li>
            )}
            {lines.map((l, i) => (
              <li key={i} className={l.who === 'you' ? 'text-right' : ''} data-testid={l.who === 'you' ? 'assistant-question' : 'assistant-answer'}>
                <span className={`inline-block whitespace-pre-wrap rounded-md px-2 py-1 text-left ${l.who === 'you' ? 'bg-sky-50 text-sky-900' : 'bg-slate-50 text-slate-800'}`}>{l.text}</span>
              </li>
            ))}
            {ask.isPending && <li className="text-slate-400">…</li>}
          </ol>
          {token && (
            <div className="flex gap-2 border-t border-slate-100 px-3 py-2">
              <button type="button" className={buttonClass.primary} onClick={() => send('yes')} data-testid="assistant-yes">Yes, do it</button>
              <button type="button" className={buttonClass.secondary} onClick={() => { setToken(undefined); setLines((l) => [...l, { who: 'trellis', text: 'Cancelled; nothing was done.' }]); }}>No</button>
            </div>
          )}
          <form onSubmit={onSubmit} className="flex gap-2 border-t border-slate-200 p-2">
            <input value={draft} onChange={(e) => setDraft(e.target.value)} placeholder="Ask about failures, stalls, lost messages…" aria-label="Question" className={inputClass} data-testid="assistant-input" maxLength={2000} />
            <button type="submit" className={buttonClass.primary} disabled={ask.isPending || !draft.trim()} data-testid="assistant-send">Ask</button>
          </form>
        </aside>
      )}
    </>
  );
}
