/**
 * The one error formatter: engine errors (typed, with a stable code and the HTTP status their class
 * declares, read by `describeError`) become tRPC error codes; bad input names the field; anything unexpected becomes a
 * plain sentence. No stack trace or internal message ever leaves the server.
 */
import { TRPCError, type TRPCDefaultErrorShape } from '@trpc/server';
import { TRPC_ERROR_CODES_BY_KEY, type TRPC_ERROR_CODE_KEY } from '@trpc/server/rpc';
import { describeError, type HttpStatus } from '@trellis/engine/errors';
import type { Finding } from '@trellis/mesh/findings';

// Keyed by every status an engine error may declare (a new one fails the typecheck until it has a
// tRPC code here).
const CODE_BY_STATUS = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  409: 'CONFLICT',
  413: 'PAYLOAD_TOO_LARGE',
  429: 'TOO_MANY_REQUESTS',
  500: 'INTERNAL_SERVER_ERROR',
  503: 'SERVICE_UNAVAILABLE',
  504: 'GATEWAY_TIMEOUT',
} as const satisfies Record<HttpStatus, TRPC_ERROR_CODE_KEY>;

/** What a person (or a script) learns about a failed call. */
export interface ApiErrorView {
  code: TRPC_ERROR_CODE_KEY;
  httpStatus: number;
  /** Stable machine-readable reason, e.g. `mesh_invalid`, `redis_unreachable`, `unauthorized`. */
  reason: string;
  message: string;
  findings?: Finding[];
}

interface IssueLike {
  path: readonly PropertyKey[];
  message: string;
}

function isIssueList(x: unknown): x is { issues: IssueLike[] } {
  return typeof x === 'object' && x !== null && Array.isArray((x as { issues?: unknown }).issues);
}

function inputMessage(cause: { issues: IssueLike[] }): string {
  const parts = cause.issues.slice(0, 3).map((i) => (i.path.length ? `${i.path.map(String).join('.')}: ${i.message}` : i.message));
  return `the request was not understood: ${parts.join('; ')}`;
}

/** Maps anything a procedure or route handler threw to a view that is safe to show. */
export function describeApiError(err: unknown): ApiErrorView {
  if (err instanceof TRPCError) {
    // Input validation: tRPC wraps the schema's issues as the cause.
    if (err.code === 'BAD_REQUEST' && isIssueList(err.cause)) {
      return { code: 'BAD_REQUEST', httpStatus: 400, reason: 'bad_input', message: inputMessage(err.cause) };
    }
    if (err.code === 'UNSUPPORTED_MEDIA_TYPE') return unsupportedMediaType(err.message);
    // A deliberate TRPCError from a router (e.g. UNAUTHORIZED) keeps its code and its sentence.
    if (err.code !== 'INTERNAL_SERVER_ERROR') {
      const httpStatus = httpStatusOf(err.code);
      return { code: err.code, httpStatus, reason: err.code.toLowerCase(), message: err.message };
    }
    if (err.cause) return describeApiError(err.cause);
  }
  const view = describeError(err);
  const code = CODE_BY_STATUS[view.status];
  const out: ApiErrorView = { code, httpStatus: view.status, reason: view.code, message: view.message };
  if (view.findings) out.findings = view.findings;
  return out;
}

/**
 * A tRPC call whose body is not JSON (415): names the content type expected and the one sent (read
 * from the adapter's sentence, `Unsupported content-type "text/plain` or `Missing content-type header`).
 */
function unsupportedMediaType(adapterMessage: string): ApiErrorView {
  const sent = /content-type "([^"]*)/.exec(adapterMessage)?.[1];
  const got = sent !== undefined ? `, not "${sent}"` : /missing/i.test(adapterMessage) ? '; none was sent' : '';
  return { code: 'UNSUPPORTED_MEDIA_TYPE', httpStatus: 415, reason: 'unsupported_media_type', message: `tRPC calls take a JSON body: send content-type: application/json${got}` };
}

function httpStatusOf(code: TRPC_ERROR_CODE_KEY): number {
  const entry = Object.entries(CODE_BY_STATUS).find(([, c]) => c === code);
  return entry ? Number(entry[0]) : code === 'PAYLOAD_TOO_LARGE' ? 413 : 500;
}

/** Extra fields on every tRPC error, read by the web app. */
export interface ApiErrorData {
  code: TRPC_ERROR_CODE_KEY;
  httpStatus: number;
  path?: string;
  reason: string;
  findings?: Finding[];
}

/** tRPC `errorFormatter`: the same view as {@link describeApiError}, with the stack dropped. */
export function formatError({
  shape,
  error,
}: {
  shape: TRPCDefaultErrorShape;
  error: TRPCError;
}): { code: number; message: string; data: ApiErrorData } {
  const view = describeApiError(error);
  const data: ApiErrorData = { code: view.code, httpStatus: view.httpStatus, reason: view.reason };
  if (shape.data.path !== undefined) data.path = shape.data.path;
  if (view.findings) data.findings = view.findings;
  return { code: TRPC_ERROR_CODES_BY_KEY[view.code], message: view.message, data };
}
