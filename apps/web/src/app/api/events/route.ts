/**
 * Live updates as Server-Sent Events, for signed-in people (every role) and API tokens with scope
 * `read` (`Authorization: Bearer trl_…`). `event: trellis` carries each batch of the engine's events
 * (pages refetch what they show); `event: run` carries a run's answer (status, cause, counts, and
 * its output once ended) whenever it moved; `?runId=<id>` follows one run until it ends
 * (packages/api live/run-events.ts).
 */
import { callerStillAllowed, whileAllowed } from '@trellis/api/live/recheck';
import { runEventStream } from '@trellis/api/live/run-events';
import { authorizeCaller } from '@trellis/api/rest/caller';
import { describeError } from '@trellis/engine/errors';
import { currentSession } from '@/server/auth';
import { getRuntime } from '@/server/runtime';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

export async function GET(req: Request): Promise<Response> {
  const rt = await getRuntime();
  try {
    // The same check as every REST route: an API token or a live session whose role may read.
    await authorizeCaller(rt.db, req, currentSession, 'read', 'GET /api/events');
  } catch (err) {
    const view = describeError(err);
    return Response.json({ error: { code: view.code, message: view.message } }, { status: view.status });
  }
  const runId = new URL(req.url).searchParams.get('runId') ?? undefined;
  if (runId !== undefined && (runId.length === 0 || runId.length > 64)) {
    return Response.json({ error: { code: 'bad_input', message: 'query.runId: expected a run id (1-64 characters)' } }, { status: 400 });
  }
  // Checked again every few seconds and before each message: the stream closes once the session ended or the token was revoked.
  return new Response(whileAllowed(runEventStream(rt.engine, { runId, signal: req.signal }), callerStillAllowed(rt.db, req, await currentSession(), 'read', 'GET /api/events')), {
    headers: {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    },
  });
}
