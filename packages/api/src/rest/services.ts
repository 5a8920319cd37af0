/**
 * The outside-service endpoints: a service claims the jobs parked for it, then completes or fails
 * them. Authenticated by the service's API key (`Authorization: Bearer <key>`), never a session.
 *
 *   POST /api/v1/services/{name}/claim?wait=<0-30 s>&lease=<1-3600 s>   body (optional) { worker? }
 *   POST /api/v1/services/{name}/jobs/{jobId}/complete                   body { output }
 *   POST /api/v1/services/{name}/jobs/{jobId}/fail                       body { reason, retryable? }
 */
import { z } from 'zod';
import { claimJob, DEFAULT_LEASE_SECONDS, MAX_LEASE_SECONDS, MAX_WAIT_SECONDS, MIN_LEASE_SECONDS } from '@trellis/engine/services/claim-job';
import { completeJob } from '@trellis/engine/services/complete-job';
import { failJob } from '@trellis/engine/services/fail-job';
import { defineRoute } from './contract';

const ServiceName = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9_-]{0,62}$/)
  .meta({ description: 'The registered service name.' });
const ServicePath = z.object({ name: ServiceName });
const JobPath = z.object({ name: ServiceName, jobId: z.string().meta({ description: 'The job id from the claim.' }) });

/** Query of a claim. */
export const ClaimQuerySchema = z.object({
  wait: z.coerce.number().min(0).max(MAX_WAIT_SECONDS).default(0).meta({ description: `Long-poll seconds (0 to ${MAX_WAIT_SECONDS}; default 0).` }),
  lease: z.coerce
    .number()
    .int()
    .min(MIN_LEASE_SECONDS)
    .max(MAX_LEASE_SECONDS)
    .optional()
    .meta({ description: `Seconds the claim holds the job (default ${DEFAULT_LEASE_SECONDS}).` }),
});

/** Optional body of a claim. */
export const ClaimBodySchema = z.object({ worker: z.string().max(200).optional().meta({ description: 'A name for the claiming worker, kept on the job.' }) }).strict();

/** Body of a completion: the answer, any JSON value (`null` included) that becomes the message's payload. */
export const CompleteBodySchema = z
  .object({ output: z.unknown().meta({ description: "The service's answer (any JSON value); it continues the run." }) })
  .strict()
  .refine((b) => b.output !== undefined, { message: 'expected the answer as "output" (any JSON value)', path: ['output'] });

/** Body of a failure. */
export const FailBodySchema = z
  .object({ reason: z.string().trim().min(1, 'expected a reason in plain words').max(2000), retryable: z.boolean().optional() })
  .strict();

/** A claimed job. */
export const JobSchema = z
  .object({
    jobId: z.string(),
    runId: z.string(),
    member: z.string().meta({ description: 'The mesh member the job belongs to.' }),
    payload: z.unknown().meta({ description: 'The parked message (any JSON).' }),
    attempt: z.number().int().min(1).meta({ description: 'More than 1 after a lapsed lease or a retryable failure.' }),
    leaseUntil: z.iso.datetime().meta({ description: 'Complete or fail before this time.' }),
  })
  .meta({ id: 'Job' });

/** What completing or failing a job did. */
export const JobResultSchema = z
  .object({
    jobId: z.string(),
    status: z.enum(['done', 'waiting', 'failed']),
    duplicate: z.boolean().meta({ description: 'True when an earlier call did this already.' }),
  })
  .meta({ id: 'JobResult' });

const authErrors = { 400: 'A body or query field is wrong; the message names it.', 401: 'The API key is missing or wrong.' } as const;

/** POST …/claim: `200 { job }` with the claimed job, or `{ job: null }` when none came within `wait`. */
export const claimJobRoute = defineRoute({
  method: 'post',
  path: '/api/v1/services/{name}/claim',
  summary: 'Claim the oldest job parked for this service, waiting up to `wait` seconds for one.',
  auth: 'service',
  params: ServicePath,
  query: ClaimQuerySchema,
  body: { kind: 'json', schema: ClaimBodySchema, required: false },
  response: { status: 200, description: 'A job, or `job: null` when none came in time.', schema: z.object({ job: JobSchema.nullable() }) },
  errors: authErrors,
  async handle({ engine, apiKey, params, query, body, signal }) {
    const job = await claimJob(await engine(), {
      service: params.name,
      apiKey,
      waitSeconds: query.wait,
      ...(query.lease !== undefined ? { leaseSeconds: query.lease } : {}),
      ...(body.worker !== undefined ? { worker: body.worker } : {}),
      signal,
    });
    return { job };
  },
});

/** POST …/jobs/{jobId}/complete: `200 { jobId, status: 'done', duplicate }`. */
export const completeJobRoute = defineRoute({
  method: 'post',
  path: '/api/v1/services/{name}/jobs/{jobId}/complete',
  summary: "Complete a job with the service's answer; it continues the run. Idempotent by job id.",
  auth: 'service',
  params: JobPath,
  body: { kind: 'json', schema: CompleteBodySchema, required: true },
  response: { status: 200, description: 'Done (or done before: `duplicate`).', schema: JobResultSchema },
  errors: { ...authErrors, 404: 'No such job for this service.', 409: 'The job failed or expired before the answer came.' },
  async handle({ engine, apiKey, params, body }) {
    return completeJob(await engine(), { service: params.name, apiKey, jobId: params.jobId, output: body.output });
  },
});

/** POST …/jobs/{jobId}/fail: `200 { jobId, status: 'waiting' | 'failed', duplicate }`. */
export const failJobRoute = defineRoute({
  method: 'post',
  path: '/api/v1/services/{name}/jobs/{jobId}/fail',
  summary: 'Give up on a job. Retryable failures put it back for another claim (a few times); others fail the run.',
  auth: 'service',
  params: JobPath,
  body: { kind: 'json', schema: FailBodySchema, required: true },
  response: { status: 200, description: '`waiting` (back for another claim) or `failed` (the run failed).', schema: JobResultSchema },
  errors: { ...authErrors, 404: 'No such job for this service.', 409: 'The job is done or expired already.' },
  async handle({ engine, apiKey, params, body }) {
    const { reason, retryable } = body;
    return failJob(await engine(), { service: params.name, apiKey, jobId: params.jobId, reason, ...(retryable !== undefined ? { retryable } : {}) });
  },
});
