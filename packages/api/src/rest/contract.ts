/**
 * The REST route contract: every `/api/v1` endpoint is one {@link RouteSpec} naming its method, path,
 * who may call it, the zod schemas of its path, query, headers, body and answer, and its errors.
 * The dispatcher (dispatch.ts) validates requests with these schemas and the OpenAPI document
 * (openapi.ts) is generated from them, so what is documented is what is accepted.
 */
import { z } from 'zod';
import type { SnapshotSource } from '@trellis/db/backup';
import type { Engine } from '@trellis/engine/engine';
import type { SignedInRule } from '@trellis/engine/users/roles';
import type { SessionClaims } from '@trellis/engine/users/session-user';
import type { SignedInUser } from '@trellis/engine/users/verify-credentials';
import { FindingSchema } from '../schemas';

/**
 * Who may call a route: anyone (`public`), an outside service with its API key as
 * `Authorization: Bearer <key>` (`service`; the path's `{name}` names the service), a caller whose
 * request is signed with a webhook's secret (`signed`; the handler checks the signature over the raw
 * body, so the route takes a `raw` body), or a signed-in
 * person whose role allows the named rule (`read`, `run`, `operate`, …; engine users/roles.ts).
 */
export type AuthKind = 'public' | 'service' | 'signed' | SignedInRule;

/** A document sent as the raw request body or as multipart form data with a `file` field. */
export interface FileUpload {
  /** The file name, when the request gave one. */
  name?: string;
  bytes: Uint8Array;
}

/**
 * A run's input as a request sent it: a document (`bytes`, raw body or form data `file`), or a JSON
 * object sent to the head as is (`payload`, a body with `Content-Type: application/json`).
 */
export type InputUpload = FileUpload | { name?: string; payload: unknown };

/** The request body exactly as sent, for checks over its bytes (webhook signatures). */
export interface RawBody {
  bytes: Uint8Array;
  contentType: string | null;
}

/**
 * A request body: JSON checked by `schema`, a {@link FileUpload}, a run input ({@link InputUpload}:
 * a document or a JSON object), or the raw bytes ({@link RawBody}).
 */
export type BodySpec =
  | { kind: 'json'; schema: z.ZodType; required: boolean; description?: string }
  | { kind: 'file'; description: string }
  | { kind: 'input'; description: string }
  | { kind: 'raw'; description: string };

/** Error statuses a route may document (every error body is {@link ErrorBodySchema}). */
export type ErrorStatus = 400 | 401 | 403 | 404 | 409 | 429 | 503 | 504;

/** The one error shape of the REST API. */
export const ErrorBodySchema = z
  .object({
    error: z.object({
      code: z.string().meta({ description: 'Stable machine-readable reason.', examples: ['bad_input', 'service_unauthorized', 'mesh_invalid'] }),
      message: z.string().meta({ description: 'A sentence for a person; names the field for bad input.' }),
      findings: z.array(FindingSchema).optional().meta({ description: "The mesh's findings, when it cannot run." }),
    }),
  })
  .meta({ id: 'Error', description: 'Every error answer: never a stack trace.' });

/** What an error answer carries. */
export type ErrorBody = z.infer<typeof ErrorBodySchema>;

type Out<S> = S extends z.ZodType ? z.output<S> : undefined;
type BodyOf<B> = B extends { kind: 'json'; schema: infer S extends z.ZodType }
  ? z.output<S>
  : B extends { kind: 'file' }
    ? FileUpload
    : B extends { kind: 'input' }
      ? InputUpload
      : B extends { kind: 'raw' }
        ? RawBody
        : undefined;

/** What a route's handler is given: the checked request parts and, lazily, the engine. */
export interface RouteInput<P, Q, H, B, A extends AuthKind> {
  /** The running engine; started on first use (503 while the database or Redis is unreachable). */
  engine: () => Promise<Engine>;
  /** The open database, for backups ({@link RestEnv.database}; 503 when the app supplies none). */
  database: () => Promise<SnapshotSource>;
  /** The request as received (headers, URL); its body has been read into `body`. */
  request: Request;
  /** The signed-in user, for routes that name a signed-in rule. */
  user: A extends SignedInRule ? SignedInUser : null;
  /** The service's API key, for `service` routes (already checked against the path's service). */
  apiKey: A extends 'service' ? string : undefined;
  params: P;
  query: Q;
  headers: H;
  body: B;
  /** Aborts when the caller goes away (long-polls end early). */
  signal: AbortSignal;
}

/** One REST endpoint. `path` is in OpenAPI form (`/api/v1/services/{name}/claim`). */
export interface RouteSpec<
  P extends z.ZodObject | undefined = z.ZodObject | undefined,
  Q extends z.ZodObject | undefined = z.ZodObject | undefined,
  H extends z.ZodObject | undefined = z.ZodObject | undefined,
  B extends BodySpec | undefined = BodySpec | undefined,
  R extends z.ZodType = z.ZodType,
  A extends AuthKind = AuthKind,
> {
  method: 'get' | 'post';
  path: `/api/v1/${string}`;
  summary: string;
  description?: string;
  auth: A;
  params?: P;
  query?: Q;
  headers?: H;
  body?: B;
  response: {
    status: 200 | 201;
    description: string;
    schema: R;
    /** Response headers, documented; {@link RouteSpec.headersOf} fills them in. */
    headers?: z.ZodObject;
  };
  /** The error statuses this route answers with, and when. */
  errors: Partial<Record<ErrorStatus, string>>;
  /** Response headers for an answer (e.g. `Location` of a created run). */
  headersOf?(body: z.input<R>): Record<string, string>;
  handle(input: RouteInput<Out<P>, Out<Q>, Out<H>, BodyOf<B>, A>): Promise<z.input<R>>;
}

/** Declares a route; the identity, for type inference of the handler's input. */
export function defineRoute<
  P extends z.ZodObject | undefined = undefined,
  Q extends z.ZodObject | undefined = undefined,
  H extends z.ZodObject | undefined = undefined,
  B extends BodySpec | undefined = undefined,
  R extends z.ZodType = z.ZodType,
  A extends AuthKind = AuthKind,
>(spec: RouteSpec<P, Q, H, B, R, A>): RouteSpec<P, Q, H, B, R, A> {
  return spec;
}

/** Where the dispatcher gets the engine and the session from (the web app supplies both). */
export interface RestEnv {
  /** The running engine; rejects while the database or Redis cannot be reached. */
  engine(): Promise<Engine>;
  /** The session claims of the request (unchecked: the dispatcher checks them), or null. */
  session(req: Request): Promise<SessionClaims | null>;
  /** The open database handle, for `GET /api/v1/admin/backup`; absent, that route answers 503. */
  database?(): Promise<SnapshotSource>;
}
