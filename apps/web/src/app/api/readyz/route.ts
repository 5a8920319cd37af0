/**
 * GET /api/readyz: 200 when the database and Redis answer and this server is not draining, else
 * 503 with the checks (runtime/health.ts `readiness`); 503 too while the runtime cannot start.
 */
import { readiness } from '@trellis/engine/runtime/health';
import { getRuntime } from '@/server/runtime';

export const dynamic = 'force-dynamic';

export async function GET(): Promise<Response> {
  const headers = { 'cache-control': 'no-store' };
  try {
    const runtime = await getRuntime();
    const r = await readiness(runtime.engine);
    return Response.json(r, { status: r.ready ? 200 : 503, headers });
  } catch (err) {
    return Response.json({ ready: false, error: err instanceof Error ? err.message : String(err) }, { status: 503, headers });
  }
}
