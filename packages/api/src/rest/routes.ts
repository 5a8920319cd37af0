/**
 * Every `/api/v1` endpoint, in the order the dispatcher tries them, and the OpenAPI document generated
 * from them (served by the last one). The web app's `/api/v1/[...rest]` route hands every request here.
 */
import { z } from 'zod';
import type { RestEnv, RouteSpec } from './contract';
import { defineRoute } from './contract';
import { dispatchRest } from './dispatch';
import { buildOpenApiDocument, type OpenApiDocument } from './openapi';
import { auditExportRoute } from './audit';
import { backupRoute } from './backup';
import { cancelRunRoute, getRunRoute, listRunsRoute, markUrgentBulkRoute, markUrgentRoute, reopenRunRoute, startRunRoute } from './runs';
import { listMeshesRoute, meshVersionsRoute } from './meshes';
import { decideApprovalRoute } from './approvals';
import { webhookRoute } from './hooks';
import { claimJobRoute, completeJobRoute, failJobRoute } from './services';

let document: OpenApiDocument | undefined;

/** GET /api/v1/openapi.json — this document (public, no session needed). */
export const openApiRoute = defineRoute({
  method: 'get',
  path: '/api/v1/openapi.json',
  summary: 'This document.',
  auth: 'public',
  response: { status: 200, description: 'OpenAPI 3.1', schema: z.record(z.string(), z.unknown()).meta({ description: 'An OpenAPI 3.1 document.' }) },
  errors: {},
  handle: () => Promise.resolve({ ...openApiDocument() }),
});

/** The REST API's routes. */
export const REST_ROUTES: readonly RouteSpec[] = [
  listMeshesRoute,
  meshVersionsRoute,
  startRunRoute,
  listRunsRoute,
  getRunRoute,
  cancelRunRoute,
  reopenRunRoute,
  markUrgentBulkRoute,
  markUrgentRoute,
  decideApprovalRoute,
  webhookRoute,
  claimJobRoute,
  completeJobRoute,
  failJobRoute,
  auditExportRoute,
  backupRoute,
  openApiRoute,
];

/** The OpenAPI 3.1 document of {@link REST_ROUTES}, built once. */
export function openApiDocument(): OpenApiDocument {
  return (document ??= buildOpenApiDocument(REST_ROUTES));
}

/** Answers a request to `/api/v1/...` from {@link REST_ROUTES}. */
export function handleRest(env: RestEnv, req: Request): Promise<Response> {
  return dispatchRest(env, REST_ROUTES, req);
}
