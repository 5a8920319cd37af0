/**
 * The OpenAPI 3.1 document of Trellis's REST API, served at `/api/v1/openapi.json`. Request bodies
 * of the service API are generated from the same zod schemas the handlers validate with
 * (`z.toJSONSchema`), so the document cannot drift from what is accepted; the rest is written here.
 */
import { z } from 'zod';
import { MAX_LEASE_SECONDS, MAX_WAIT_SECONDS, DEFAULT_LEASE_SECONDS } from '@trellis/engine/services/claim-job';
import { ClaimBodySchema, CompleteBodySchema, FailBodySchema } from './services';

function bodySchema(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _drop, ...rest } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  return rest;
}

const json = (schema: unknown) => ({ 'application/json': { schema } });
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const error = (description: string) => ({ description, content: json(ref('Error')) });

const serviceName = { name: 'name', in: 'path', required: true, description: 'The registered service name.', schema: { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9_-]{0,62}$' } };
const jobId = { name: 'jobId', in: 'path', required: true, description: 'The job id from the claim.', schema: { type: 'string' } };
const serviceErrors = {
  '400': error('A body or query field is wrong; the message names it.'),
  '401': error('The API key is missing or wrong.'),
};

/** Builds the document (a plain object, JSON-serialisable). */
export function openApiDocument(): Record<string, unknown> {
  return {
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
      },
      schemas: {
        Error: {
          type: 'object',
          required: ['error'],
          properties: {
            error: {
              type: 'object',
              required: ['code', 'message'],
              properties: { code: { type: 'string', examples: ['service_unauthorized', 'bad_input'] }, message: { type: 'string' }, findings: { type: 'array', items: { type: 'object' } } },
            },
          },
        },
        Job: {
          type: 'object',
          required: ['jobId', 'runId', 'member', 'payload', 'attempt', 'leaseUntil'],
          properties: {
            jobId: { type: 'string' },
            runId: { type: 'string' },
            member: { type: 'string', description: 'The mesh member the job belongs to.' },
            payload: { description: 'The parked message (any JSON).' },
            attempt: { type: 'integer', minimum: 1, description: 'More than 1 after a lapsed lease or a retryable failure.' },
            leaseUntil: { type: 'string', format: 'date-time', description: 'Complete or fail before this time.' },
          },
        },
        JobResult: {
          type: 'object',
          required: ['jobId', 'status', 'duplicate'],
          properties: {
            jobId: { type: 'string' },
            status: { type: 'string', enum: ['done', 'waiting', 'failed'] },
            duplicate: { type: 'boolean', description: 'True when an earlier call did this already.' },
          },
        },
      },
    },
    paths: {
      '/api/v1/meshes/{id}/runs': {
        post: {
          summary: "Start a run of a mesh's latest version (or ?version=n) on a document.",
          security: [{ session: [] }],
          parameters: [
            { name: 'id', in: 'path', required: true, schema: { type: 'string' }, description: 'Mesh id.' },
            { name: 'version', in: 'query', required: false, schema: { type: 'integer', minimum: 1 } },
            { name: 'x-file-name', in: 'header', required: false, schema: { type: 'string' }, description: 'The file name, URL-encoded, when the body is raw bytes.' },
          ],
          requestBody: {
            required: true,
            content: {
              'application/octet-stream': { schema: { type: 'string', contentMediaType: 'application/octet-stream' } },
              'multipart/form-data': { schema: { type: 'object', required: ['file'], properties: { file: { type: 'string', contentMediaType: 'application/octet-stream' } } } },
            },
          },
          responses: {
            '201': { description: 'Started.', content: json({ type: 'object', required: ['runId'], properties: { runId: { type: 'string' } } }) },
            '400': error('The input was refused or the mesh has findings (listed).'),
            '401': error('Not signed in.'),
            '404': error('No such mesh or version.'),
            '503': error('Redis or the database is unreachable.'),
          },
        },
      },
      '/api/v1/services/{name}/claim': {
        post: {
          summary: 'Claim the oldest job parked for this service, waiting up to `wait` seconds for one.',
          security: [{ serviceKey: [] }],
          parameters: [
            serviceName,
            { name: 'wait', in: 'query', required: false, description: `Long-poll seconds (0 to ${MAX_WAIT_SECONDS}; default 0).`, schema: { type: 'number', minimum: 0, maximum: MAX_WAIT_SECONDS } },
            { name: 'lease', in: 'query', required: false, description: `Seconds the claim holds the job (default ${DEFAULT_LEASE_SECONDS}).`, schema: { type: 'integer', minimum: 1, maximum: MAX_LEASE_SECONDS } },
          ],
          requestBody: { required: false, content: json(bodySchema(ClaimBodySchema)) },
          responses: {
            '200': { description: 'A job, or `job: null` when none came in time.', content: json({ type: 'object', required: ['job'], properties: { job: { oneOf: [ref('Job'), { type: 'null' }] } } }) },
            ...serviceErrors,
          },
        },
      },
      '/api/v1/services/{name}/jobs/{jobId}/complete': {
        post: {
          summary: "Complete a job with the service's answer; it continues the run. Idempotent by job id.",
          security: [{ serviceKey: [] }],
          parameters: [serviceName, jobId],
          requestBody: { required: true, content: json(bodySchema(CompleteBodySchema)) },
          responses: {
            '200': { description: 'Done (or done before: `duplicate`).', content: json(ref('JobResult')) },
            ...serviceErrors,
            '404': error('No such job for this service.'),
            '409': error('The job failed or expired before the answer came.'),
          },
        },
      },
      '/api/v1/services/{name}/jobs/{jobId}/fail': {
        post: {
          summary: 'Give up on a job. Retryable failures put it back for another claim (a few times); others fail the run.',
          security: [{ serviceKey: [] }],
          parameters: [serviceName, jobId],
          requestBody: { required: true, content: json(bodySchema(FailBodySchema)) },
          responses: {
            '200': { description: '`waiting` (back for another claim) or `failed` (the run failed).', content: json(ref('JobResult')) },
            ...serviceErrors,
            '404': error('No such job for this service.'),
            '409': error('The job is done or expired already.'),
          },
        },
      },
      '/api/v1/openapi.json': {
        get: { summary: 'This document.', responses: { '200': { description: 'OpenAPI 3.1', content: json({ type: 'object' }) } } },
      },
    },
  };
}
