/** POST /api/v1/services/:name/jobs/:jobId/complete `{ output }` — the service's answer (idempotent by job id). */
import { completeRoute } from '@trellis/api/rest/services';
import { servicePost } from '../../../../unavailable';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

export const POST = servicePost<{ name: string; jobId: string }>((engine, req, { name, jobId }) => completeRoute(engine, req, name, jobId));
