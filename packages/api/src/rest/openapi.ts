/**
 * The OpenAPI 3.1 document of the REST API, generated (with zod-openapi) from the route contract:
 * every path, parameter, body and answer comes from the zod schemas the dispatcher validates with,
 * and every error answer is the one `Error` shape.
 */
import { z } from 'zod';
import { createDocument, type oas31, type ZodOpenApiOperationObject, type ZodOpenApiPathsObject, type ZodOpenApiResponseObject } from 'zod-openapi';
import { ErrorBodySchema, type AuthKind, type RouteSpec } from './contract';
import { FILE_NAME_HEADER } from './read-request';

function security(auth: AuthKind): oas31.SecurityRequirementObject[] {
  if (auth === 'public') return [];
  if (auth === 'signed') return [{ webhookSignature: [] }, { githubSignature: [] }];
  return auth === 'service' ? [{ serviceKey: [] }] : [{ apiToken: [] }, { session: [] }];
}

/**
 * An error answer. With `id` it is registered once under `components/responses` and referenced from
 * each operation, so the document (and the sdk types generated from it) holds each shared error once.
 */
const error = (description: string, id?: string): ZodOpenApiResponseObject => ({ ...(id ? { id } : {}), description, content: { 'application/json': { schema: ErrorBodySchema } } });

/** The answers every operation shares. */
const UNAVAILABLE = error('Redis or the database is unreachable; try again shortly.', 'Unavailable');
const UNEXPECTED = error('Any other error (a plain sentence, never a stack trace).', 'UnexpectedError');

/**
 * The shared error answers: one object per status and description that more than one route gives,
 * registered as `Error401` or, for a second such description of the same status, `Error401b`.
 * (zod-openapi registers a component by object identity, so each is one object reused.)
 */
function sharedErrors(routes: readonly RouteSpec[]): Map<string, ZodOpenApiResponseObject> {
  const uses = new Map<string, number>();
  for (const route of routes) for (const [status, description] of Object.entries(route.errors)) uses.set(`${status} ${description}`, (uses.get(`${status} ${description}`) ?? 0) + 1);
  const shared = new Map<string, ZodOpenApiResponseObject>();
  const perStatus = new Map<string, number>();
  for (const [key, n] of uses) {
    if (n < 2) continue;
    const status = key.slice(0, key.indexOf(' '));
    const k = perStatus.get(status) ?? 0;
    perStatus.set(status, k + 1);
    shared.set(key, error(key.slice(status.length + 1), `Error${status}${k === 0 ? '' : String.fromCharCode(97 + k)}`));
  }
  return shared;
}

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

function operation(route: RouteSpec, shared: ReadonlyMap<string, ZodOpenApiResponseObject>): ZodOpenApiOperationObject {
  const fileHeader = z.object({ [FILE_NAME_HEADER]: z.string().optional().meta({ description: 'The file name, URL-encoded, when the body is raw bytes.' }) });
  const takesFile = route.body?.kind === 'file' || route.body?.kind === 'input';
  const header = takesFile ? (route.headers ? fileHeader.extend(route.headers.shape) : fileHeader) : route.headers;
  const requestParams = {
    ...(route.params ? { path: route.params } : {}),
    ...(route.query ? { query: route.query } : {}),
    ...(header ? { header } : {}),
  };
  const errors = Object.fromEntries(Object.entries(route.errors).map(([status, description]) => [status, shared.get(`${status} ${description}`) ?? error(description)]));
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
      ...(route.auth === 'public' ? {} : { '503': UNAVAILABLE }),
      default: UNEXPECTED,
    },
  };
}

/** The OpenAPI 3.1 document object. */
export type OpenApiDocument = ReturnType<typeof createDocument>;

/** Builds the document for `routes` (a plain JSON-serialisable object). */
export function buildOpenApiDocument(routes: readonly RouteSpec[]): OpenApiDocument {
  const paths: ZodOpenApiPathsObject = {};
  const shared = sharedErrors(routes);
  for (const route of routes) paths[route.path] = { ...paths[route.path], [route.method]: operation(route, shared) };
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
