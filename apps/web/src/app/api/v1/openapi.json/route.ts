/** GET /api/v1/openapi.json — the OpenAPI 3.1 document of the REST API (public, no session needed). */
import { openApiDocument } from '@trellis/api/rest/openapi';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

export function GET(): Response {
  return Response.json(openApiDocument());
}
