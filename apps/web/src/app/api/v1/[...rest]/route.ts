/**
 * Every /api/v1 request (every method): the routes, their checks and the OpenAPI document at
 * /api/v1/openapi.json live in @trellis/api/rest; a path no route has answers a JSON 404.
 */
import { handleRest } from '@trellis/api/rest/routes';
import { restEnv } from '@/server/rest-env';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

const handler = (req: Request): Promise<Response> => handleRest(restEnv, req);

export { handler as GET, handler as POST, handler as PUT, handler as PATCH, handler as DELETE, handler as HEAD, handler as OPTIONS };
