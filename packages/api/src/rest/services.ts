/**
 * The outside-service REST API as plain `Request → Response` functions; the web app's route
 * handlers only pass the engine and the path parameters. Bodies and query parameters are checked
 * with zod and a bad one names the field; errors are `{ error: { code, message } }`, never a stack.
 *
 *   POST /api/v1/services/{name}/claim?wait=<0-30 s>&lease=<1-3600 s>   body (optional) { worker? }
 *   POST /api/v1/services/{name}/jobs/{jobId}/complete                   body { output }
 *   POST /api/v1/services/{name}/jobs/{jobId}/fail                       body { reason, retryable? }
 *
 * The API key travels as `Authorization: Bearer <key>`.
 */
import { z } from 'zod';
import type { Engine } from '@trellis/engine/runtime/context';
import { claimJob, MAX_LEASE_SECONDS, MAX_WAIT_SECONDS, MIN_LEASE_SECONDS } from '@trellis/engine/services/claim-job';
import { completeJob } from '@trellis/engine/services/complete-job';
import { failJob } from '@trellis/engine/services/fail-job';
import { authenticateService } from '@trellis/engine/services/registry';
import { describeApiError } from '../errors';

/** Query of a claim. */
export const ClaimQuerySchema = z.object({
  wait: z.coerce.number().min(0).max(MAX_WAIT_SECONDS).default(0),
  lease: z.coerce.number().int().min(MIN_LEASE_SECONDS).max(MAX_LEASE_SECONDS).optional(),
});

/** Optional body of a claim. */
export const ClaimBodySchema = z.object({ worker: z.string().max(200).optional() }).strict();

/** Body of a completion: the answer, any JSON value (`null` included) that becomes the message's payload. */
export const CompleteBodySchema = z
  .object({ output: z.unknown() })
  .strict()
  .refine((b) => b.output !== undefined, { message: 'expected the answer as "output" (any JSON value)', path: ['output'] });

/** Body of a failure. */
export const FailBodySchema = z
  .object({ reason: z.string().trim().min(1, 'expected a reason in plain words').max(2000), retryable: z.boolean().optional() })
  .strict();

/** `{ error: { code, message } }` with the status. */
export function errorResponse(status: number, code: string, message: string): Response {
  return Response.json({ error: { code, message } }, { status });
}

function bearer(req: Request): string | undefined {
  const h = req.headers.get('authorization') ?? '';
  const m = /^Bearer\s+(\S+)\s*$/i.exec(h);
  return m?.[1];
}

class BadInput extends Error {}

function issues(err: z.ZodError, where: string): BadInput {
  const parts = err.issues.slice(0, 3).map((i) => `${[where, ...i.path.map(String)].join('.')}: ${i.message}`);
  return new BadInput(parts.join('; '));
}

async function jsonBody(req: Request, optional: boolean): Promise<unknown> {
  const text = await req.text();
  if (text.trim() === '') {
    if (optional) return {};
    throw new BadInput('body: expected a JSON object');
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new BadInput('body: not valid JSON');
  }
}

function parse<T>(schema: z.ZodType<T>, value: unknown, where: string): T {
  const got = schema.safeParse(value);
  if (!got.success) throw issues(got.error, where);
  return got.data;
}

/** Checks the key first (a wrong key is a 401 whatever the body), then runs the call. */
async function answer(engine: Engine, req: Request, service: string, run: () => Promise<unknown>): Promise<Response> {
  try {
    await authenticateService(engine.db, service, bearer(req));
    return Response.json(await run());
  } catch (err) {
    if (err instanceof BadInput) return errorResponse(400, 'bad_input', err.message);
    const view = describeApiError(err);
    if (view.httpStatus >= 500 && view.reason === 'internal') {
      process.stderr.write(`[trellis] service API: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    }
    return errorResponse(view.httpStatus, view.reason, view.message);
  }
}

/** POST …/claim: `200 { job }` with the claimed job, or `{ job: null }` when none came within `wait`. */
export function claimRoute(engine: Engine, req: Request, service: string): Promise<Response> {
  return answer(engine, req, service, async () => {
    const url = new URL(req.url);
    const query = parse(ClaimQuerySchema, Object.fromEntries(url.searchParams), 'query');
    const body = parse(ClaimBodySchema, await jsonBody(req, true), 'body');
    const job = await claimJob(engine, {
      service,
      apiKey: bearer(req),
      waitSeconds: query.wait,
      ...(query.lease !== undefined ? { leaseSeconds: query.lease } : {}),
      ...(body.worker !== undefined ? { worker: body.worker } : {}),
      signal: req.signal,
    });
    return { job };
  });
}

/** POST …/jobs/{jobId}/complete: `200 { jobId, status: 'done', duplicate }`. */
export function completeRoute(engine: Engine, req: Request, service: string, jobId: string): Promise<Response> {
  return answer(engine, req, service, async () => {
    const body = parse(CompleteBodySchema, await jsonBody(req, false), 'body');
    return completeJob(engine, { service, apiKey: bearer(req), jobId, output: body.output });
  });
}

/** POST …/jobs/{jobId}/fail: `200 { jobId, status: 'waiting' | 'failed', duplicate }`. */
export function failRoute(engine: Engine, req: Request, service: string, jobId: string): Promise<Response> {
  return answer(engine, req, service, async () => {
    const body = parse(FailBodySchema, await jsonBody(req, false), 'body');
    return failJob(engine, { service, apiKey: bearer(req), jobId, reason: body.reason, ...(body.retryable !== undefined ? { retryable: body.retryable } : {}) });
  });
}
