/**
 * POST /api/v1/services/:name/claim?wait=&lease= — an outside service claims its next parked job
 * (long-poll up to 30 s). Authenticated by the service's API key (`Authorization: Bearer`), not a
 * session. The logic lives in @trellis/api/rest/services.
 */
import { claimRoute } from '@trellis/api/rest/services';
import { servicePost } from '../../unavailable';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

export const POST = servicePost<{ name: string }>((engine, req, { name }) => claimRoute(engine, req, name));
