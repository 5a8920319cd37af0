/**
 * GET /api/metrics: this server's Prometheus metrics (kernel/metrics.ts; with the in-process engine
 * its workers' counters too), behind `Authorization: Bearer <TRELLIS_METRICS_TOKEN>` when that is
 * set. 503 while the runtime cannot start (the token is read with it).
 */
import { metricsResponse } from '@trellis/engine/runtime/health';
import { getRuntime } from '@/server/runtime';

export const dynamic = 'force-dynamic';

export async function GET(request: Request): Promise<Response> {
  let token: string | undefined;
  try {
    token = (await getRuntime()).metricsToken;
  } catch (err) {
    return new Response(`metrics unavailable: ${err instanceof Error ? err.message : String(err)}\n`, { status: 503, headers: { 'content-type': 'text/plain; charset=utf-8' } });
  }
  const m = await metricsResponse(token, request.headers.get('authorization'));
  return new Response(m.body, { status: m.status, headers: { 'content-type': m.contentType, 'cache-control': 'no-store' } });
}
