/**
 * The health server of a worker or orchestrator process (TRELLIS_HEALTH_PORT, TRELLIS_HEALTH_HOST):
 * - `GET /livez`: 200 while the process's event loop answers (Kubernetes restarts it otherwise);
 * - `GET /readyz`: 200 when the database and Redis answer and the process is not draining
 *   (runtime/drain.ts), else 503 with the failed checks, so traffic and new work go elsewhere;
 * - `GET /metrics`: this process's Prometheus metrics (kernel/metrics.ts), behind
 *   `Authorization: Bearer <TRELLIS_METRICS_TOKEN>` when that is set.
 * The web app serves the same three under /api (apps/web), through {@link readiness} and
 * {@link metricsResponse}.
 */
import { createServer, type Server } from 'node:http';
import { timingSafeEqual } from 'node:crypto';
import { sql } from 'drizzle-orm';
import type { Engine } from '../kernel/engine';
import { busOf } from '../kernel/queues';
import { renderMetrics } from '../kernel/metrics';
import { isDraining } from './drain';
import { reportGaugesOf } from './metrics-source';

/** One readiness check's result. */
export interface Check {
  ok: boolean;
  /** Why it failed (an error message, or the drain reason). */
  detail?: string;
}

/** What /readyz answers: `ready` only when every check passed. */
export interface Readiness {
  ready: boolean;
  checks: { database: Check; redis: Check; draining: Check };
}

/** How long a readiness check may take before it counts as failed, ms. */
export const CHECK_TIMEOUT_MS = 2_000;

async function within(ms: number, what: string, work: () => Promise<unknown>): Promise<Check> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not answer within ${ms} ms`)), ms);
  });
  try {
    await Promise.race([work(), late]);
    return { ok: true };
  } catch (err) {
    return { ok: false, detail: err instanceof Error ? err.message : String(err) };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Checks that `engine`'s database answers `select 1`, its Redis answers PING (not asked on the
 * in-process bus, which needs none), and this process is not draining. Never throws.
 */
export async function readiness(engine: Engine, timeoutMs = CHECK_TIMEOUT_MS): Promise<Readiness> {
  const drain = isDraining();
  const [database, redis] = await Promise.all([
    within(timeoutMs, 'the database (DATABASE_URL)', () => engine.db.execute(sql`select 1`)),
    busOf(engine).kind === 'local' ? Promise.resolve<Check>({ ok: true, detail: 'in-process bus: no Redis' }) : within(timeoutMs, 'Redis (REDIS_URL)', () => engine.redis.ping()),
  ]);
  const draining: Check = drain ? { ok: false, detail: `draining (${drain})` } : { ok: true };
  return { ready: database.ok && redis.ok && draining.ok, checks: { database, redis, draining } };
}

/**
 * True when `authorization` (the request's header) carries `token` as a bearer token, or no token
 * is required. Compared in constant time.
 */
export function metricsAllowed(token: string | undefined, authorization: string | null | undefined): boolean {
  if (!token) return true;
  const given = Buffer.from(/^Bearer\s+(.+)$/i.exec(authorization ?? '')?.[1]?.trim() ?? '');
  const want = Buffer.from(token);
  return given.length === want.length && timingSafeEqual(given, want);
}

/** The /metrics answer: 401 without the token when one is set, else the metrics text. */
export async function metricsResponse(token: string | undefined, authorization: string | null | undefined): Promise<{ status: number; body: string; contentType: string }> {
  if (!metricsAllowed(token, authorization)) {
    return { status: 401, body: 'metrics need Authorization: Bearer <TRELLIS_METRICS_TOKEN>\n', contentType: 'text/plain; charset=utf-8' };
  }
  const { body, contentType } = await renderMetrics();
  return { status: 200, body, contentType };
}

/** Options for {@link startHealthServer}. */
export interface HealthServerOptions {
  /** TCP port; 0 picks a free one (read it back from `port`). */
  port: number;
  /** Address to bind (default `0.0.0.0`). */
  host?: string;
  /** TRELLIS_METRICS_TOKEN, when /metrics needs a bearer token. */
  metricsToken?: string | undefined;
}

/** A listening health server. */
export interface HealthServer {
  /** The port it listens on (the chosen one when asked for 0). */
  readonly port: number;
  close(): Promise<void>;
}

/**
 * Serves /livez, /readyz and /metrics for `engine` and makes it the source of the scrape-time
 * gauges (queue depth, runs by status).
 * @throws Error naming TRELLIS_HEALTH_PORT when the port cannot be bound (taken, or not allowed).
 */
export async function startHealthServer(engine: Engine, options: HealthServerOptions): Promise<HealthServer> {
  reportGaugesOf(engine);
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const send = (status: number, body: string, contentType = 'application/json') => {
      res.writeHead(status, { 'content-type': contentType, 'cache-control': 'no-store' });
      res.end(body);
    };
    if (req.method !== 'GET' && req.method !== 'HEAD') return send(405, JSON.stringify({ error: 'only GET' }));
    if (path === '/livez') return send(200, JSON.stringify({ ok: true }));
    if (path === '/readyz') {
      void readiness(engine).then((r) => send(r.ready ? 200 : 503, JSON.stringify(r)));
      return;
    }
    if (path === '/metrics') {
      metricsResponse(options.metricsToken, req.headers.authorization).then(
        (m) => send(m.status, m.body, m.contentType),
        (err: unknown) => send(500, `metrics failed: ${err instanceof Error ? err.message : String(err)}\n`, 'text/plain; charset=utf-8'),
      );
      return;
    }
    send(404, JSON.stringify({ error: `no ${path}; try /livez, /readyz or /metrics` }));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err) => reject(new Error(`TRELLIS_HEALTH_PORT ${options.port}: cannot listen on ${options.host ?? '0.0.0.0'} (${err.message})`)));
    server.listen(options.port, options.host ?? '0.0.0.0', () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
