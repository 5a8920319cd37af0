/**
 * The OpenAPI 3.1 document of the REST API, generated (with zod-openapi) from the route contract:
 * every path, parameter, body and answer comes from the zod schemas the dispatcher validates with,
 * and every error answer is the one `Error` shape.
 */
import { z } from 'zod';
import { createDocument, type oas31, type ZodOpenApiOperationObject, type ZodOpenApiPathsObject } from 'zod-openapi';
import { ErrorBodySchema, type AuthKind, type RouteSpec } from './contract';
import { FILE_NAME_HEADER } from './read-request';

function security(auth: AuthKind): oas31.SecurityRequirementObject[] {
  if (auth === 'public') return [];
  if (auth === 'signed') return [{ webhookSignature: [] }, { githubSignature: [] }];
  return auth === 'service' ? [{ serviceKey: [] }] : [{ apiToken: [] }, { session: [] }];
}

const error = (description: string) => ({ description, content: { 'application/json': { schema: ErrorBodySchema } } });

const binary = { type: 'string', contentMediaType: 'application/octet-stream' } as const;

function requestBody(route: RouteSpec): ZodOpenApiOperationObject['requestBody'] {
  const body = route.body;
  if (!body) return undefined;
  if (body.kind === 'raw') {
    return { required: true, description: body.description, content: { '*/*': { schema: binary } } };
  }
  if (body.kind === 'input') {
    return {
      required: true,
      description: body.description,
      content: {
        'application/json': { schema: { type: 'object', additionalProperties: true, description: "Sent to the mesh's head member as its payload." } },
        'application/octet-stream': { schema: binary },
        'multipart/form-data': { schema: { type: 'object', required: ['file'], properties: { file: binary } } },
      },
    };
  }
  if (body.kind === 'json') {
    return { required: body.required, ...(body.description ? { description: body.description } : {}), content: { 'application/json': { schema: body.schema } } };
  }
  return {
    required: true,
    description: body.description,
    content: {
      'application/octet-stream': { schema: binary },
      'multipart/form-data': { schema: { type: 'object', required: ['file'], properties: { file: binary } } },
    },
  };
}

function operation(route: RouteSpec): ZodOpenApiOperationObject {
  const fileHeader = z.object({ [FILE_NAME_HEADER]: z.string().optional().meta({ description: 'The file name, URL-encoded, when the body is raw bytes.' }) });
  const takesFile = route.body?.kind === 'file' || route.body?.kind === 'input';
  const header = takesFile ? (route.headers ? fileHeader.extend(route.headers.shape) : fileHeader) : route.headers;
  const requestParams = {
    ...(route.params ? { path: route.params } : {}),
    ...(route.query ? { query: route.query } : {}),
    ...(header ? { header } : {}),
  };
  const errors = Object.fromEntries(Object.entries(route.errors).map(([status, description]) => [status, error(description)]));
  const body = requestBody(route);
  return {
    summary: route.summary,
    ...(route.description ? { description: route.description } : {}),
    security: security(route.auth),
    ...(Object.keys(requestParams).length ? { requestParams } : {}),
    ...(body ? { requestBody: body } : {}),
    responses: {
      [String(route.response.status)]: {
        description: route.response.description,
        ...(route.response.headers ? { headers: route.response.headers } : {}),
        content: { 'application/json': { schema: route.response.schema } },
      },
      ...errors,
      ...(route.auth === 'public' ? {} : { '503': error('Redis or the database is unreachable; try again shortly.') }),
      default: error('Any other error (a plain sentence, never a stack trace).'),
    },
  };
}

/** The OpenAPI 3.1 document object. */
export type OpenApiDocument = ReturnType<typeof createDocument>;

/** Builds the document for `routes` (a plain JSON-serialisable object). */
export function buildOpenApiDocument(routes: readonly RouteSpec[]): OpenApiDocument {
  const paths: ZodOpenApiPathsObject = {};
  for (const route of routes) paths[route.path] = { ...paths[route.path], [route.method]: operation(route) };
  return createDocument({
    openapi: '3.1.0',
    info: {
      title: 'Trellis REST API',
      version: '1.0.0',
      description:
        'Start runs of saved meshes, and serve outside-service members: a service claims the jobs parked for it, then completes or fails them. Delivery is at-least-once: a job whose lease lapses is handed out again, and completing it twice is harmless.',
    },
    servers: [{ url: '/' }],
    components: {
      securitySchemes: {
        serviceKey: { type: 'http', scheme: 'bearer', description: 'The key shown once by `trellis service add <name>` or on the Services page.' },
        session: { type: 'apiKey', in: 'cookie', name: 'next-auth.session-token', description: 'A signed-in web session.' },
        apiToken: {
          type: 'http',
          scheme: 'bearer',
          description: 'An API token `trl_…` (account page, or `tokens.createService` for a service account); it acts with the lesser of its owner\'s role and its scope.',
        },
        webhookSignature: {
          type: 'apiKey',
          in: 'header',
          name: 'Trellis-Signature',
          description: '`t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>" under the webhook\'s secret>`; t within 5 minutes of the server clock.',
        },
        githubSignature: {
          type: 'apiKey',
          in: 'header',
          name: 'X-Hub-Signature-256',
          description: "GitHub's form: `sha256=<hex HMAC-SHA256 of the raw body>` (no timestamp; replays are refused by `X-GitHub-Delivery`).",
        },
      },
    },
    paths,
  });
}
