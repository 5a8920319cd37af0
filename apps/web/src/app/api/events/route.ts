/**
 * Live updates as Server-Sent Events, for signed-in people (every role) and API tokens with scope
 * `read` (`Authorization: Bearer trl_…`). Each SSE message (`event: trellis`)
 * carries a batch of the engine's events (run status changed, run failed, action item changed,
 * counts moved) as the orchestrator publishes them on Redis pub/sub; pages refetch what they show.
 * A comment line every 15 s keeps proxies from closing an idle stream.
 */
import { subscribeEvents } from '@trellis/engine/events/subscribe';
import { callerStillAllowed, whileAllowed } from '@trellis/api/live/recheck';
import { authorizeCaller } from '@trellis/api/rest/caller';
import { describeError } from '@trellis/engine/errors';
import { currentSession } from '@/server/auth';
import { getRuntime } from '@/server/runtime';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

const PING_MS = 15_000;

export async function GET(req: Request): Promise<Response> {
  const rt = await getRuntime();
  try {
    // The same check as every REST route: an API token or a live session whose role may read.
    await authorizeCaller(rt.db, req, currentSession, 'read', 'GET /api/events');
  } catch (err) {
    const view = describeError(err);
    return Response.json({ reason: view.code, message: view.message }, { status: view.status });
  }
  const encoder = new TextEncoder();
  let cleanup: (() => void) | undefined;
  const stream = new ReadableStream<Uint8Array>({
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
      send('retry: 2000\n: connected\n\n');
      let stop: (() => Promise<void>) | undefined;
      const ping = setInterval(() => send(': ping\n\n'), PING_MS);
      cleanup = () => {
        if (!open && !stop) return;
        open = false;
        clearInterval(ping);
        void stop?.();
        stop = undefined;
        try {
          controller.close();
        } catch {
          // already closed by the client
        }
      };
      req.signal.addEventListener('abort', () => cleanup?.());
      try {
        stop = await subscribeEvents(rt.engine, (events) => send(`event: trellis\ndata: ${JSON.stringify(events)}\n\n`));
        send('event: ready\ndata: {}\n\n');
        if (req.signal.aborted) cleanup();
      } catch (err) {
        send(`event: failure\ndata: ${JSON.stringify({ message: err instanceof Error ? err.message : String(err) })}\n\n`);
        cleanup();
      }
    },
    cancel() {
      cleanup?.();
    },
  });
  // Checked again every few seconds and before each message: the stream closes once the session ended or the token was revoked.
  return new Response(whileAllowed(stream, callerStillAllowed(rt.db, req, await currentSession(), 'read', 'GET /api/events')), {
    headers: {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    },
  });
}
