/** GET /api/health: 200 once the database and Redis are open (and the embedded engine runs), else 503. */
import { getRuntime } from '@/server/runtime';

export const dynamic = 'force-dynamic';

export async function GET(): Promise<Response> {
  try {
    const runtime = await getRuntime();
    return Response.json({ ok: true, engine: runtime.engineMode });
  } catch (err) {
    return Response.json({ ok: false, error: err instanceof Error ? err.message : String(err) }, { status: 503 });
  }
}
