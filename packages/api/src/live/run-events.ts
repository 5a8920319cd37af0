/**
 * The live-updates stream (Server-Sent Events, `GET /api/events`), for pages and for other systems
 * following runs with an API token. Two kinds of SSE message:
 *
 * - `event: trellis` — each batch of engine events as the orchestrator publishes it (run status
 *   changed, run failed, action item changed, counts moved); pages refetch what they show.
 * - `event: run` — a run's answer whenever it moved: `{ runId, status, ended, cause, causeMember,
 *   causeMessage, counts, seconds }`, and `output` once it ended. With `?runId=<id>` the stream
 *   follows that run only: its answer at once, again whenever an event names it and, while it
 *   runs, whenever its counts changed (re-read every second: message progress writes no events),
 *   and after its final answer `event: end`, then the stream closes; a client follows a run
 *   without polling.
 *
 * A comment line every 15 s keeps proxies from closing an idle stream.
 */
import { subscribeEvents } from '@trellis/engine/events/subscribe';
import type { Engine } from '@trellis/engine/engine';
import { waitForAnswer, type RunAnswer } from '@trellis/engine/runs/wait-answer';

/** Most runs one batch re-reads for `event: run` (the rest are in the `trellis` batch). */
const RUNS_PER_BATCH = 50;

/** Options of {@link runEventStream}. */
export interface RunEventStreamOptions {
  /** Follow this run only; the stream ends after its final answer. */
  runId?: string | undefined;
  /** The request's signal: the stream stops when the client goes away. */
  signal: AbortSignal;
  /** Keep-alive comment interval, in ms (default 15 000). */
  pingMs?: number;
  /** How often a followed run's counts are re-read, in ms (default 1 000). */
  progressMs?: number;
}

/** What `event: run` carries: the answer, with `output` only once the run has ended. */
export function runEventData(a: RunAnswer): Record<string, unknown> {
  const { output, meshId: _m, meshName: _n, meshVersion: _v, ...rest } = a;
  return a.ended ? { ...rest, output } : rest;
}

/** The SSE stream; see the module comment for its messages. */
export function runEventStream(engine: Engine, options: RunEventStreamOptions): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let cleanup: (() => void) | undefined;
  return new ReadableStream<Uint8Array>({
    async start(controller) {
      let open = true;
      const send = (text: string) => {
        if (!open) return;
        try {
          controller.enqueue(encoder.encode(text));
        } catch {
          open = false;
        }
      };
      let stop: (() => Promise<void>) | undefined;
      const ping = setInterval(() => send(': ping\n\n'), options.pingMs ?? 15_000);
      let progress: NodeJS.Timeout | undefined;
      cleanup = () => {
        if (!open && !stop) return;
        open = false;
        clearInterval(ping);
        clearInterval(progress);
        void stop?.();
        stop = undefined;
        try {
          controller.close();
        } catch {
          // already closed by the client
        }
      };
      options.signal.addEventListener('abort', () => cleanup?.());
      // Batches are answered one after another, so a run's answers arrive in order.
      let chain: Promise<void> = Promise.resolve();
      let lastSent = '';
      const answerRuns = async (ids: readonly string[]) => {
        for (const id of ids.slice(0, RUNS_PER_BATCH)) {
          if (!open) return;
          const answer = await waitForAnswer(engine.db, id, { timeoutMs: 0 }).catch(() => undefined);
          if (!answer) continue;
          const data = JSON.stringify(runEventData({ ...answer, seconds: 0 }));
          // A follower is told only what changed (the seconds always do).
          if (options.runId && data === lastSent) continue;
          lastSent = data;
          send(`event: run\ndata: ${JSON.stringify(runEventData(answer))}\n\n`);
          if (options.runId && answer.ended) {
            send('event: end\ndata: {}\n\n');
            cleanup?.();
          }
        }
      };
      send('retry: 2000\n: connected\n\n');
      try {
        stop = await subscribeEvents(engine, (events) => {
          if (!options.runId) send(`event: trellis\ndata: ${JSON.stringify(events)}\n\n`);
          const moved = options.runId
            ? [options.runId]
            : [...new Set(events.filter((e) => (e.kind === 'run.status' || e.kind === 'run.failed') && e.runId).map((e) => e.runId ?? ''))];
          if (moved.length > 0) chain = chain.then(() => answerRuns(moved));
        });
        send('event: ready\ndata: {}\n\n');
        if (options.signal.aborted) cleanup();
        // A follower gets the run as it stands now (it may have ended before the client came).
        else if (options.runId) {
          let queued = false;
          const follow = () => {
            if (queued) return;
            queued = true;
            chain = chain.then(() => answerRuns([options.runId ?? ''])).finally(() => (queued = false));
          };
          follow();
          progress = setInterval(follow, options.progressMs ?? 1000);
        }
      } catch (err) {
        send(`event: failure\ndata: ${JSON.stringify({ message: err instanceof Error ? err.message : String(err) })}\n\n`);
        cleanup();
      }
    },
    cancel() {
      cleanup?.();
    },
  });
}
