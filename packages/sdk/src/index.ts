/**
 * A client for Trellis outside services, on nothing but `fetch` (Node 18+ and browsers).
 *
 * ```ts
 * const client = createServiceClient({ baseUrl: 'http://localhost:3000', service: 'records-check', apiKey });
 * const running = client.serve(async (job) => ({ ...job.payload, checked: true }));
 * process.on('SIGTERM', () => void running.stop());
 * ```
 *
 * Delivery is at-least-once: a job whose lease lapses (the handler took longer than the lease, or
 * the process died) is handed out again with the same `jobId`, so handlers should be idempotent.
 * The request and answer types come from the REST API's OpenAPI document (./openapi.ts, generated).
 */
import type { components, paths } from './openapi';

/** A claimed job: `attempt` is 1 on the first claim, more after a lapsed lease or a retryable failure. */
export type ServiceJob = components['schemas']['Job'];

/** What completing or failing a job did; `duplicate` is true when an earlier call did the same already. */
export type JobResult = components['schemas']['JobResult'];

// The service endpoints' wire shapes, read from the generated document types so the client cannot drift.
type ServicePath = Extract<keyof paths, `/api/v1/services/${string}`>;
type Post<P extends ServicePath> = paths[P]['post'];
type QueryOf<P extends ServicePath> = NonNullable<Post<P>['parameters']['query']>;
type BodyOf<P extends ServicePath> = NonNullable<Post<P>['requestBody']>['content']['application/json'];
type AnswerOf<P extends ServicePath> = Post<P>['responses'][200]['content']['application/json'];
type ErrorBody = components['schemas']['Error'];

/** An error answer of the API: `status` is the HTTP status, `code` the stable reason (e.g. `service_unauthorized`). */
export class TrellisApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'TrellisApiError';
  }
}

/**
 * The parsed JSON body of an answer.
 * @throws TrellisApiError with the error body's code and message for a non-2xx status.
 */
export async function readAnswer<T>(res: Response, url: URL): Promise<T> {
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (!res.ok) {
    const err = (parsed as Partial<ErrorBody> | undefined)?.error;
    throw new TrellisApiError(res.status, err?.code ?? 'http_error', err?.message ?? `HTTP ${res.status} from ${url.pathname}`);
  }
  return parsed as T;
}

/** Throw from a handler to fail the job; `retryable` puts it back for another claim. */
export class JobFailure extends Error {
  constructor(
    reason: string,
    readonly retryable = false,
  ) {
    super(reason);
    this.name = 'JobFailure';
  }
}

/** Options of {@link createServiceClient}. */
export interface ServiceClientOptions {
  /** Where Trellis's web app answers, e.g. `http://localhost:3000`. */
  baseUrl: string;
  /** The registered service name. */
  service: string;
  /** The key printed by `trellis service add <name>`. */
  apiKey: string;
  /** A name for this worker, kept on claimed jobs (default: none). */
  worker?: string;
  /** A `fetch` to use instead of the global one (tests, proxies). */
  fetch?: typeof fetch;
}

/** Options of {@link ServiceClient.serve}. */
export interface ServeOptions {
  /** Long-poll seconds per claim (default 20, at most 30). */
  waitSeconds?: number;
  /** Lease seconds per claim (default: the server's, 60). */
  leaseSeconds?: number;
  /** Called with errors the loop survives (network trouble, a failed completion); default: ignored. */
  onError?: (err: unknown) => void;
}

/** A running {@link ServiceClient.serve} loop. */
export interface Serving {
  /** Stops claiming, lets the job in hand finish and be reported, then resolves. */
  stop(): Promise<void>;
  /** Resolves when the loop has ended. */
  readonly done: Promise<void>;
}

/** The client. */
export interface ServiceClient {
  /** Claims the next job, waiting up to `waitSeconds` (0-30); null when none came. */
  claim(options?: { waitSeconds?: number; leaseSeconds?: number; signal?: AbortSignal }): Promise<ServiceJob | null>;
  /** Completes a job with the answer (any JSON value). */
  complete(jobId: string, output: unknown): Promise<JobResult>;
  /** Fails a job with a reason in plain words. */
  fail(jobId: string, reason: string, options?: { retryable?: boolean }): Promise<JobResult>;
  /**
   * Claims jobs one at a time and answers each with `handler`'s result; a handler that throws fails
   * the job with the error's message (retryable when it is a retryable {@link JobFailure}).
   * A wrong key (401) ends the loop with that error in `done`; other errors back off and retry.
   */
  serve(handler: (job: ServiceJob) => unknown, options?: ServeOptions): Serving;
}

/** Creates a client for one service. @throws TypeError for a base URL that is not http(s). */
export function createServiceClient(options: ServiceClientOptions): ServiceClient {
  const base = new URL(options.baseUrl);
  if (base.protocol !== 'http:' && base.protocol !== 'https:') throw new TypeError(`baseUrl must be an http(s) URL, got ${options.baseUrl}`);
  const doFetch = options.fetch ?? fetch;

  /**
   * POSTs `body` to the endpoint `path` (its `{name}` is this service, `{jobId}` the given job) with
   * `query`, and answers the parsed 200 body.
   */
  async function call<P extends ServicePath>(
    path: P,
    ids: { jobId?: string },
    query: QueryOf<P> | undefined,
    body: BodyOf<P>,
    signal?: AbortSignal,
  ): Promise<AnswerOf<P>> {
    const url = new URL(
      path.replace('{name}', encodeURIComponent(options.service)).replace('{jobId}', encodeURIComponent(ids.jobId ?? '')),
      base,
    );
    for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
    const res = await doFetch(url, {
      method: 'POST',
      headers: { authorization: `Bearer ${options.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
      ...(signal ? { signal } : {}),
    });
    return readAnswer<AnswerOf<P>>(res, url);
  }

  const client: ServiceClient = {
    async claim(o = {}) {
      const query = { wait: o.waitSeconds ?? 0, ...(o.leaseSeconds !== undefined ? { lease: o.leaseSeconds } : {}) };
      const got = await call('/api/v1/services/{name}/claim', {}, query, options.worker ? { worker: options.worker } : {}, o.signal);
      return got.job;
    },
    complete(jobId, output) {
      return call('/api/v1/services/{name}/jobs/{jobId}/complete', { jobId }, undefined, { output: output === undefined ? null : output });
    },
    fail(jobId, reason, o = {}) {
      const body = { reason, ...(o.retryable !== undefined ? { retryable: o.retryable } : {}) };
      return call('/api/v1/services/{name}/jobs/{jobId}/fail', { jobId }, undefined, body);
    },
    serve(handler, o = {}) {
      const stopping = new AbortController();
      const report = o.onError ?? (() => undefined);
      const loop = async () => {
        let backoffMs = 500;
        while (!stopping.signal.aborted) {
          let job: ServiceJob | null;
          try {
            job = await client.claim({ waitSeconds: o.waitSeconds ?? 20, signal: stopping.signal, ...(o.leaseSeconds !== undefined ? { leaseSeconds: o.leaseSeconds } : {}) });
            backoffMs = 500;
          } catch (err) {
            if (stopping.signal.aborted) return;
            if (err instanceof TrellisApiError && err.status === 401) throw err;
            report(err);
            await sleep(backoffMs, stopping.signal);
            backoffMs = Math.min(backoffMs * 2, 30_000);
            continue;
          }
          if (!job) continue;
          try {
            let output: unknown;
            try {
              output = await handler(job);
            } catch (err) {
              const reason = err instanceof Error ? err.message : String(err);
              await client.fail(job.jobId, reason, { retryable: err instanceof JobFailure && err.retryable });
              continue;
            }
            await client.complete(job.jobId, output);
          } catch (err) {
            // The answer did not get through: the lease lapses and the job comes back (at-least-once).
            report(err);
          }
        }
      };
      const done = loop();
      return {
        done,
        async stop() {
          stopping.abort();
          await done.catch(() => undefined);
        },
      };
    },
  };
  return client;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(t);
      resolve();
    }, { once: true });
  });
}
