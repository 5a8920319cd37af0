/**
 * POST /api/v1/services/:name/claim?wait=&lease= — an outside service claims its next parked job
 * (long-poll up to 30 s). Authenticated by the service's API key (`Authorization: Bearer`), not a
 * session. The logic lives in @trellis/api/rest/services.
 */
import { claimRoute } from '@trellis/api/rest/services';
import { getRuntime } from '@/server/runtime';
import { unavailable } from '../../unavailable';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

export async function POST(req: Request, ctx: { params: Promise<{ name: string }> }): Promise<Response> {
  const { name } = await ctx.params;
  const rt = await getRuntime().catch(() => undefined);
  if (!rt) return unavailable();
  return claimRoute(rt.engine, req, name);
}
