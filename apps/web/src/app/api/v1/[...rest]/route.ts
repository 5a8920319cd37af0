/**
 * Any /api/v1 path no route answers (every method): 404 with the REST API's JSON error body
 * `{ error: { code: 'not_found', message } }`, not the HTML page. The routes that exist (services,
 * meshes/:id/runs, openapi.json) are more specific, so Next.js matches them before this catch-all.
 */
import { errorResponse } from '@trellis/api/rest/services';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

function notFound(req: Request): Response {
  const path = new URL(req.url).pathname;
  return errorResponse(404, 'not_found', `no REST endpoint ${req.method} ${path}; the endpoints are listed at /api/v1/openapi.json`);
}

export const GET = notFound;
export const POST = notFound;
export const PUT = notFound;
export const PATCH = notFound;
export const DELETE = notFound;
export const HEAD = notFound;
export const OPTIONS = notFound;
