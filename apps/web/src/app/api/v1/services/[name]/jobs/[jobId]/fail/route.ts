/** POST /api/v1/services/:name/jobs/:jobId/fail `{ reason, retryable? }` — the service gives up on a job. */
import { failRoute } from '@trellis/api/rest/services';
import { servicePost } from '../../../../unavailable';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

export const POST = servicePost<{ name: string; jobId: string }>((engine, req, { name, jobId }) => failRoute(engine, req, name, jobId));
