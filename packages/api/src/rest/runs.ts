/**
 * POST /api/v1/meshes/{id}/runs — start a run of the mesh's latest version (or `?version=n`) on an
 * uploaded document, for a signed-in person. Answers 201 `{ runId }` with `Location: /runs/<id>`.
 */
import { z } from 'zod';
import { startRun } from '@trellis/engine/runs/start-run';
import { defineRoute } from './contract';

const positive = 'must be a positive whole number';

/** A started run. */
export const StartedRunSchema = z.object({ runId: z.string() }).meta({ id: 'StartedRun' });

export const startRunRoute = defineRoute({
  method: 'post',
  path: '/api/v1/meshes/{id}/runs',
  summary: "Start a run of a mesh's latest version (or ?version=n) on a document.",
  auth: 'run',
  params: z.object({ id: z.string().meta({ description: 'Mesh id.' }) }),
  query: z.object({
    version: z.coerce.number({ error: positive }).int({ error: positive }).min(1, { error: positive }).optional().meta({ description: 'Mesh version; default the latest.' }),
  }),
  body: { kind: 'file', description: "The document: the file's bytes as the body (any content type), or form data with a `file` field." },
  response: {
    status: 201,
    description: 'Started.',
    schema: StartedRunSchema,
    headers: z.object({ Location: z.string().meta({ description: 'The run page, `/runs/<runId>`.' }) }),
  },
  errors: {
    400: 'The input was refused or the mesh has findings (listed).',
    401: 'Not signed in, or the session has ended.',
    403: 'Refused by the role policy (starting runs needs designer, operator or admin).',
    404: 'No such mesh or version.',
  },
  headersOf: ({ runId }) => ({ Location: `/runs/${runId}` }),
  async handle({ engine, user, params, query, body }) {
    const { runId } = await startRun(await engine(), {
      meshId: params.id,
      ...(query.version !== undefined ? { version: query.version } : {}),
      input: body,
      userId: user.id,
    });
    return { runId };
  },
});
