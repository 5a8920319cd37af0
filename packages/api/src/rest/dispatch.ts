/**
 * Serving the REST contract: `dispatchRest(env, routes, req)` finds the route for the request's path
 * and method and runs it. The order is fixed: who is calling (a service key or a session, both
 * checked against the database, so the engine starts first), then the path, query, headers and
 * body against the route's schemas, then the handler. Errors go through `describeApiError`, so the
 * status is the one the engine error's class declares, in the body `{ error: { code, message } }`.
 */
import { describeError, EngineError } from '@trellis/engine/errors';
import type { Engine } from '@trellis/engine/engine';
import { authenticateService } from '@trellis/engine/services/registry';
import { describeApiError } from '../errors';
import type { ErrorBody, RestEnv, RouteSpec } from './contract';
import { authorizeCaller } from './caller';
import { bearer, parsePart, readBody, refuseNul } from './read-request';

/** The engine could not be started for a reason other than a known outage (HTTP 503). */
class UnavailableError extends EngineError {
  static override readonly httpStatus = 503;
  constructor() {
    super('unavailable', 'Trellis cannot reach its database or Redis right now; try again shortly');
  }
}

/** `{ error: { code, message, findings? } }` with the status. */
export function errorResponse(status: number, code: string, message: string, findings?: ErrorBody['error']['findings']): Response {
  return Response.json({ error: { code, message, ...(findings ? { findings } : {}) } } satisfies ErrorBody, { status });
}

function logFault(err: unknown): void {
  process.stderr.write(`[trellis] REST API: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
}

/** `/api/v1/services/{name}/claim` as a pattern whose groups are the parameters, in order. */
function compile(path: string): { pattern: RegExp; names: string[] } {
  const names: string[] = [];
  const source = path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{(\w+)\}/g, (_m, name: string) => {
    names.push(name);
    return '([^/]+)';
  });
  return { pattern: new RegExp(`^${source}$`), names };
}

const compiled = new WeakMap<RouteSpec, ReturnType<typeof compile>>();

function match(route: RouteSpec, pathname: string): Record<string, string> | undefined {
  let c = compiled.get(route);
  if (!c) compiled.set(route, (c = compile(route.path)));
  const m = c.pattern.exec(pathname);
  if (!m) return undefined;
  return Object.fromEntries(c.names.map((name, i) => [name, decodeURIComponent(m[i + 1] ?? '')]));
}

/** Starts the engine once per request; an outage keeps its own code, anything else is `unavailable`. */
function lazyEngine(env: RestEnv): () => Promise<Engine> {
  let started: Promise<Engine> | undefined;
  return () =>
    (started ??= env.engine().catch((err: unknown) => {
      if (describeError(err).status === 503) throw err;
      logFault(err);
      throw new UnavailableError();
    }));
}

async function run(env: RestEnv, route: RouteSpec, req: Request, raw: Record<string, string>): Promise<Response> {
  const url = new URL(req.url);
  const rawQuery = Object.fromEntries(url.searchParams);
  // Before the caller is checked: a service's name and the ids reach SQL, which cannot hold U+0000.
  refuseNul(raw, 'path');
  refuseNul(rawQuery, 'query');
  const engine = lazyEngine(env);
  let user = null;
  let apiKey: string | undefined;
  if (route.auth === 'service') {
    // A wrong key is a 401 whatever else is wrong with the request.
    apiKey = bearer(req);
    await authenticateService((await engine()).db, raw.name ?? '', apiKey);
  } else if (route.auth !== 'public' && route.auth !== 'signed') {
    // The one access check (shared with tRPC and the live-updates stream): a token or a session.
    user = await authorizeCaller((await engine()).db, req, () => env.session(req), route.auth, `${route.method.toUpperCase()} ${route.path}`);
  }
  const input = {
    engine,
    database: () => (env.database ? env.database() : Promise.reject(new UnavailableError())),
    request: req,
    user,
    apiKey,
    params: route.params ? parsePart(route.params, raw, 'path') : undefined,
    query: route.query ? parsePart(route.query, rawQuery, 'query') : undefined,
    headers: route.headers ? parsePart(route.headers, Object.fromEntries(req.headers), 'headers') : undefined,
    body: route.body ? await readBody(req, route.body) : undefined,
    signal: req.signal,
  };
  // Each part was checked against the route's own schema just above.
  const body = await route.handle(input);
  return Response.json(body, { status: route.response.status, ...(route.headersOf ? { headers: route.headersOf(body) } : {}) });
}

/**
 * Answers `req` with the first of `routes` whose path and method match: 404 `not_found` for a path
 * no route has, 405 `method_not_allowed` (with `Allow`) for another method, 204 for `OPTIONS`,
 * and `HEAD` as `GET` without the body.
 */
export async function dispatchRest(env: RestEnv, routes: readonly RouteSpec[], req: Request): Promise<Response> {
  const { pathname } = new URL(req.url);
  const method = req.method.toLowerCase();
  let allowed: string[] = [];
  for (const route of routes) {
    let raw: Record<string, string> | undefined;
    try {
      raw = match(route, pathname);
    } catch {
      return errorResponse(400, 'bad_input', `path: ${pathname} is not validly URL-encoded`);
    }
    if (!raw) continue;
    if (route.method === method || (method === 'head' && route.method === 'get')) {
      try {
        const res = await run(env, route, req, raw);
        return method === 'head' ? new Response(null, { status: res.status, headers: res.headers }) : res;
      } catch (err) {
        const view = describeApiError(err);
        if (view.httpStatus >= 500 && view.reason === 'internal') logFault(err);
        return errorResponse(view.httpStatus, view.reason, view.message, view.findings);
      }
    }
    allowed = [...allowed, route.method.toUpperCase()];
  }
  if (allowed.length === 0) {
    return errorResponse(404, 'not_found', `no REST endpoint ${req.method} ${pathname}; the endpoints are listed at /api/v1/openapi.json`);
  }
  const allow = [...allowed, 'OPTIONS'].join(', ');
  if (method === 'options') return new Response(null, { status: 204, headers: { Allow: allow } });
  const res = errorResponse(405, 'method_not_allowed', `${pathname} answers ${allowed.join(', ')}, not ${req.method}`);
  res.headers.set('Allow', allow);
  return res;
}
