/**
 * Runs over REST v1: start a run of a mesh (a document, form data or a JSON object; an
 * `Idempotency-Key` returns the same run for the same key), read its answer (optionally waiting for
 * it), list runs with the Runs tab's filters, cancel, re-open and mark urgent. Starting goes through the one
 * entry use case (engine runs/start-entry-run.ts) every entry point shares.
 */
import { z } from 'zod';
import { CAUSES } from '@trellis/mesh/causes';
import { RUN_SORTS, searchRuns } from '@trellis/engine/ops/search-runs';
import { cancelRun } from '@trellis/engine/runs/cancel-run';
import { reopenRun } from '@trellis/engine/runs/reopen-run';
import { MARK_URGENT_MAX, markUrgent, markUrgentRuns } from '@trellis/engine/runs/mark-urgent';
import { startEntryRun } from '@trellis/engine/runs/start-entry-run';
import { waitForAnswer } from '@trellis/engine/runs/wait-answer';
import { bearer } from './read-request';
import { isApiToken } from '@trellis/engine/tokens/authenticate-token';
import { MeshIdSchema, RUN_STATUSES, RunIdSchema } from '../schemas';
import { defineRoute } from './contract';
import { EntryAnswerSchema, iso, RunAnswerSchema, RunRowSchema } from './wire';

const positive = 'must be a positive whole number';

/** Longest `?wait=` on a run's answer, in seconds. */
export const MAX_WAIT_SECONDS = 60;

const waitQuery = z.coerce
  .number({ error: `must be a number of seconds from 0 to ${MAX_WAIT_SECONDS}` })
  .min(0)
  .max(MAX_WAIT_SECONDS)
  .optional()
  .meta({ description: `Wait up to this many seconds (0–${MAX_WAIT_SECONDS}) for the run to end before answering; check \`ended\`.` });

export const startRunRoute = defineRoute({
  method: 'post',
  path: '/api/v1/meshes/{id}/runs',
  summary: "Start a run of a mesh's latest version (or ?version=n) on a document or a JSON object.",
  description:
    'The same key in `Idempotency-Key` returns the same run (`reused: true`) instead of starting another; a key is scoped to its caller and reused with a different request is refused (409 `idempotency_key_reused`).',
  auth: 'run',
  params: z.object({ id: MeshIdSchema.meta({ description: 'Mesh id.' }) }),
  query: z.object({
    version: z.coerce.number({ error: positive }).int({ error: positive }).min(1, { error: positive }).optional().meta({ description: 'Mesh version; default the latest.' }),
  }),
  headers: z.object({
    'idempotency-key': z.string().min(1).max(200).optional().meta({ description: 'Retry-safe start: the same key returns the same run (IETF httpapi Idempotency-Key draft).' }),
  }),
  body: {
    kind: 'input',
    description: "`application/json`: a JSON object sent to the head as its payload. Anything else: the document's bytes (file name in `x-file-name`), or form data with a `file` field.",
  },
  response: {
    status: 201,
    description: 'Started (or, for a reused key, the run started before).',
    schema: EntryAnswerSchema,
    headers: z.object({ Location: z.string().meta({ description: 'The run page, `/runs/<runId>`.' }) }),
  },
  errors: {
    400: 'The input was refused (`input_rejected`) or the mesh has findings (`mesh_invalid`, listed).',
    401: 'No valid token or session.',
    403: 'Refused by the role policy (starting runs needs designer, operator or admin; a token needs scope "run").',
    404: 'No such mesh or version.',
    409: 'The Idempotency-Key was used before for a different request.',
  },
  headersOf: ({ runId }) => ({ Location: `/runs/${runId}` }),
  async handle({ engine, user, params, query, headers, body, request }) {
    const key = headers['idempotency-key'];
    const byToken = isApiToken(bearer(request));
    // A browser upload (session) is the `upload` entry; a script with a token is `rest`.
    return startEntryRun(await engine(), {
      mesh: { id: params.id, ...(query.version !== undefined ? { version: query.version } : {}) },
      input: body,
      ...(key !== undefined ? { idempotencyKey: `rest:${user.id}:${key}` } : {}),
      entry: byToken ? 'rest' : 'upload',
      actor: { id: user.id, email: user.email },
    });
  },
});

export const getRunRoute = defineRoute({
  method: 'get',
  path: '/api/v1/runs/{id}',
  summary: "A run's answer: status, cause, counts and output (optionally waiting for the end).",
  auth: 'read',
  params: z.object({ id: RunIdSchema }),
  query: z.object({ wait: waitQuery }),
  response: { status: 200, description: 'The run as it stands (or as it ended).', schema: RunAnswerSchema },
  errors: { 400: 'A malformed `wait`.', 401: 'No valid token or session.', 404: 'No such run.' },
  async handle({ engine, params, query, signal }) {
    const e = await engine();
    return waitForAnswer(e.db, params.id, { timeoutMs: (query.wait ?? 0) * 1000, signal });
  },
});

const SEVERITIES = ['critical', 'project', 'capacity'] as const;

export const listRunsRoute = defineRoute({
  method: 'get',
  path: '/api/v1/runs',
  summary: 'Runs with the Runs tab filters, search, sorts and paging.',
  auth: 'read',
  query: z.object({
    meshId: MeshIdSchema.optional(),
    status: z.enum(RUN_STATUSES).optional(),
    cause: z.enum(CAUSES).optional(),
    severity: z.enum(SEVERITIES).optional(),
    from: z.coerce.date({ error: 'expected an ISO 8601 time' }).optional().meta({ description: 'Created at or after (ISO 8601).' }),
    to: z.coerce.date({ error: 'expected an ISO 8601 time' }).optional().meta({ description: 'Created before (ISO 8601).' }),
    search: z.string().min(1).max(200).optional().meta({ description: 'A run id prefix or an input name prefix.' }),
    sort: z.enum(RUN_SORTS).default('started'),
    direction: z.enum(['asc', 'desc']).default('desc'),
    limit: z.coerce.number().int().min(1).max(200).default(25),
    offset: z.coerce.number().int().nonnegative().default(0),
  }),
  response: { status: 200, description: 'One page and the total that matches.', schema: z.object({ items: z.array(RunRowSchema), total: z.number().int() }) },
  errors: { 400: 'A malformed filter (named).', 401: 'No valid token or session.' },
  async handle({ engine, query }) {
    const { items, total } = await searchRuns((await engine()).db, query);
    return {
      total,
      items: items.map((r) => ({ ...r, createdAt: iso(r.createdAt), startedAt: iso(r.startedAt), endedAt: iso(r.endedAt), movedAt: iso(r.movedAt), prunedAt: iso(r.prunedAt) })),
    };
  },
});

export const cancelRunRoute = defineRoute({
  method: 'post',
  path: '/api/v1/runs/{id}/cancel',
  summary: "Cancel a run: its running steps stop wherever they run; it ends `cancelled`.",
  auth: 'operate',
  params: z.object({ id: RunIdSchema }),
  body: { kind: 'json', required: false, schema: z.object({ reason: z.string().max(500).optional() }) },
  response: {
    status: 200,
    description: 'Cancelled, with its child runs and how many messages were set aside.',
    schema: z.object({ runId: z.string(), status: z.literal('cancelled'), runs: z.array(z.string()), messages: z.number().int() }),
  },
  errors: { 401: 'No valid token or session.', 403: 'Refused by the role policy (operator or admin; token scope "operate").', 404: 'No such run.', 409: 'The run has ended already.' },
  async handle({ engine, user, params, body }) {
    return cancelRun(await engine(), { runId: params.id, userId: user.id, ...(body.reason ? { reason: body.reason } : {}) });
  },
});

export const reopenRunRoute = defineRoute({
  method: 'post',
  path: '/api/v1/runs/{id}/reopen',
  summary: 'Re-open a failed or stalled run from its failed step, on its own version or the latest.',
  auth: 'operate',
  params: z.object({ id: RunIdSchema }),
  body: { kind: 'json', required: false, schema: z.object({ version: z.enum(['pinned', 'latest']).default('pinned') }) },
  response: {
    status: 200,
    description: 'Re-opened: the attempt number, the version used and the members re-published from.',
    schema: z.object({ runId: z.string(), attempt: z.number().int(), fromVersion: z.number().int(), toVersion: z.number().int(), members: z.array(z.string()), messages: z.number().int() }),
  },
  errors: { 401: 'No valid token or session.', 403: 'Refused by the role policy (operator or admin).', 404: 'No such run.', 409: 'The run cannot be re-opened (the reason is named).' },
  async handle({ engine, user, params, body }) {
    const r = await reopenRun(await engine(), { runId: params.id, version: body.version, userId: user.id });
    return { runId: r.runId, attempt: r.attempt, fromVersion: r.fromVersion, toVersion: r.toVersion, members: r.members, messages: r.messages };
  },
});

const MarkUrgentResultSchema = z.object({
  marked: z.array(z.string()).meta({ description: 'Runs urgent now (those already urgent included).' }),
  refused: z.array(z.object({ runId: z.string(), reason: z.string() })).meta({ description: 'Runs not marked, each with the reason.' }),
  moved: z.number().int().meta({ description: 'Waiting messages moved to the urgent lanes.' }),
});

export const markUrgentRoute = defineRoute({
  method: 'post',
  path: '/api/v1/runs/{id}/urgent',
  summary: 'Mark a run urgent: its messages go ahead of normal work on every pool they reach.',
  description:
    'Normal work keeps its reserved share of every worker (TRELLIS_RESERVED_SHARE, default 0.2). Marking a run already urgent changes nothing; its waiting messages move to the urgent lane under the same ids.',
  auth: 'operate',
  params: z.object({ id: RunIdSchema }),
  response: { status: 200, description: 'Marked, and how many waiting messages moved.', schema: MarkUrgentResultSchema },
  errors: { 401: 'No valid token or session.', 403: 'Refused by the role policy (operator or admin; token scope "operate").', 404: 'No such run.', 409: 'The run has ended already.' },
  async handle({ engine, user, params }) {
    return markUrgent(await engine(), { runId: params.id, userId: user.id });
  },
});

export const markUrgentBulkRoute = defineRoute({
  method: 'post',
  path: '/api/v1/runs/urgent',
  summary: `Mark up to ${MARK_URGENT_MAX} runs urgent at once; runs that cannot be marked are listed with the reason.`,
  auth: 'operate',
  body: { kind: 'json', required: true, schema: z.object({ runIds: z.array(RunIdSchema).min(1).max(MARK_URGENT_MAX) }) },
  response: { status: 200, description: 'The runs marked and those refused.', schema: MarkUrgentResultSchema },
  errors: { 400: 'runIds missing, empty or too long.', 401: 'No valid token or session.', 403: 'Refused by the role policy (operator or admin; token scope "operate").' },
  async handle({ engine, user, body }) {
    return markUrgentRuns(await engine(), { runIds: body.runIds, userId: user.id });
  },
});
