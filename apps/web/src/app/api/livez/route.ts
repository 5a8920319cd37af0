/** GET /api/livez: 200 while the server answers at all (liveness; it opens nothing, so a database outage never restarts the pod). */
export const dynamic = 'force-dynamic';

export function GET(): Response {
  return Response.json({ ok: true }, { headers: { 'cache-control': 'no-store' } });
}
