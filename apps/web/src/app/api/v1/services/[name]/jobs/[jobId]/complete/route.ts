/** POST /api/v1/services/:name/jobs/:jobId/complete `{ output }` — the service's answer (idempotent by job id). */
import { completeRoute } from '@trellis/api/rest/services';
import { getRuntime } from '@/server/runtime';
import { unavailable } from '../../../../unavailable';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

export async function POST(req: Request, ctx: { params: Promise<{ name: string; jobId: string }> }): Promise<Response> {
  const { name, jobId } = await ctx.params;
  const rt = await getRuntime().catch(() => undefined);
  if (!rt) return unavailable();
  return completeRoute(rt.engine, req, name, jobId);
}
