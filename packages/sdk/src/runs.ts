/**
 * A client for starting runs from another system and reading their answers, on `fetch` alone,
 * with an API token (`trl_…`). Request and answer types come from the generated OpenAPI types
 * (./openapi.ts), so the client follows the contract or fails its typecheck.
 *
 * ```ts
 * const trellis = createRunClient({ baseUrl: 'http://localhost:3000', token: process.env.TRELLIS_TOKEN! });
 * const { runId } = await trellis.startRun(meshId, { json: { claimId: 7 } }, { idempotencyKey: 'claim-7' });
 * const answer = await trellis.getRun(runId, { waitSeconds: 30 });
 * ```
 */
import { readAnswer } from './index';
import type { components, paths } from './openapi';

/** The one answer of every entry point: `reused` when the idempotency key named an earlier run. */
export type StartedRun = components['schemas']['StartedRun'];
/** A run's answer: status, cause, counts, output; `ended` once final. */
export type RunAnswer = components['schemas']['RunAnswer'];
/** A run in a list. */
export type RunRow = components['schemas']['RunRow'];
/** The Runs tab's filters. */
export type RunFilter = NonNullable<paths['/api/v1/runs']['get']['parameters']['query']>;
type Json<T> = T extends { content: { 'application/json': infer B } } ? B : never;
type Ok<Op, S extends number> = Op extends { responses: Record<S, infer R> } ? Json<R> : never;

/** What a run starts on: a JSON object (the head's payload), text, or a document's bytes. */
export type RunInputBody = { json: Record<string, unknown> } | { text: string; fileName?: string } | { bytes: Uint8Array; fileName?: string };

/** Options of {@link createRunClient}. */
export interface RunClientOptions {
  baseUrl: string;
  /** An API token, `trl_…`. */
  token: string;
  fetch?: typeof fetch;
}

/** The client; every method throws `TrellisApiError` (./index) for an error answer. */
export interface RunClient {
  listMeshes(): Promise<Ok<paths['/api/v1/meshes']['get'], 200>>;
  meshVersions(meshId: string): Promise<Ok<paths['/api/v1/meshes/{id}/versions']['get'], 200>>;
  startRun(meshId: string, input: RunInputBody, options?: { version?: number; idempotencyKey?: string }): Promise<StartedRun>;
  /** The run's answer, waiting up to `waitSeconds` (0–60) for it to end. */
  getRun(runId: string, options?: { waitSeconds?: number }): Promise<RunAnswer>;
  listRuns(filter?: RunFilter): Promise<Ok<paths['/api/v1/runs']['get'], 200>>;
  cancelRun(runId: string, reason?: string): Promise<Ok<paths['/api/v1/runs/{id}/cancel']['post'], 200>>;
  reopenRun(runId: string, version?: 'pinned' | 'latest'): Promise<Ok<paths['/api/v1/runs/{id}/reopen']['post'], 200>>;
  /** Marks runs urgent (one id: POST /runs/{id}/urgent, refusing an ended run with 409; several: POST /runs/urgent, listing refusals). */
  markUrgent(runIds: string | readonly string[]): Promise<Ok<paths['/api/v1/runs/urgent']['post'], 200>>;
  decideApproval(approvalId: string, decision: 'approve' | 'reject', comment?: string): Promise<Ok<paths['/api/v1/approvals/{id}/decision']['post'], 200>>;
}

/** Creates the client. @throws TypeError for a base URL that is not http(s). */
export function createRunClient(options: RunClientOptions): RunClient {
  const base = new URL(options.baseUrl);
  if (base.protocol !== 'http:' && base.protocol !== 'https:') throw new TypeError(`baseUrl must be an http(s) URL, got ${options.baseUrl}`);
  const doFetch = options.fetch ?? fetch;

  async function call<T>(method: 'GET' | 'POST', path: string, init: { query?: Record<string, string | number | boolean | Date | undefined>; headers?: Record<string, string>; body?: string | Blob } = {}): Promise<T> {
    const url = new URL(path, base);
    for (const [k, v] of Object.entries(init.query ?? {})) if (v !== undefined) url.searchParams.set(k, v instanceof Date ? v.toISOString() : String(v));
    const res = await doFetch(url, { method, headers: { authorization: `Bearer ${options.token}`, ...init.headers }, ...(init.body !== undefined ? { body: init.body } : {}) });
    return readAnswer<T>(res, url);
  }
  const id = encodeURIComponent;
  const json = (body: unknown) => ({ headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

  return {
    listMeshes: () => call('GET', '/api/v1/meshes'),
    meshVersions: (meshId) => call('GET', `/api/v1/meshes/${id(meshId)}/versions`),
    startRun(meshId, input, o = {}) {
      const headers: Record<string, string> = o.idempotencyKey ? { 'idempotency-key': o.idempotencyKey } : {};
      let body: string | Blob;
      if ('json' in input) {
        headers['content-type'] = 'application/json';
        body = JSON.stringify(input.json);
      } else {
        headers['content-type'] = 'application/octet-stream';
        if (input.fileName) headers['x-file-name'] = encodeURIComponent(input.fileName);
        body = 'text' in input ? input.text : new Blob([input.bytes.slice()]);
      }
      return call('POST', `/api/v1/meshes/${id(meshId)}/runs`, { query: { version: o.version }, headers, body });
    },
    getRun: (runId, o = {}) => call('GET', `/api/v1/runs/${id(runId)}`, { query: { wait: o.waitSeconds } }),
    listRuns: (filter = {}) => call('GET', '/api/v1/runs', { query: filter }),
    cancelRun: (runId, reason) => call('POST', `/api/v1/runs/${id(runId)}/cancel`, json(reason ? { reason } : {})),
    reopenRun: (runId, version = 'pinned') => call('POST', `/api/v1/runs/${id(runId)}/reopen`, json({ version })),
    markUrgent: (runIds) => (typeof runIds === 'string' ? call('POST', `/api/v1/runs/${id(runIds)}/urgent`) : call('POST', '/api/v1/runs/urgent', json({ runIds: [...runIds] }))),
    decideApproval: (approvalId, decision, comment) => call('POST', `/api/v1/approvals/${id(approvalId)}/decision`, json({ decision, ...(comment ? { comment } : {}) })),
  };
}
