/**
 * POST /api/v1/hooks/{id} — a signed webhook: starts a run of the webhook's mesh. No session or
 * token: the request is signed with the webhook's secret (`Trellis-Signature: t=<unix s>,v1=<hex
 * HMAC-SHA256 of "<t>.<raw body>">`, or GitHub's `X-Hub-Signature-256: sha256=<hex>`), checked
 * over the raw body before anything else; a bad signature is 401 `signature_invalid` and recorded.
 */
import { z } from 'zod';
import { receiveWebhook } from '@trellis/engine/webhooks/receive';
import { idSchema } from '../schemas';
import { defineRoute } from './contract';
import { EntryAnswerSchema } from './wire';

export const webhookRoute = defineRoute({
  method: 'post',
  path: '/api/v1/hooks/{id}',
  summary: 'A signed webhook: start a run of its mesh on the body (JSON object or document).',
  description:
    'Sign `"<t>.<raw body>"` with HMAC-SHA256 under the secret shown when the webhook was made, and send `Trellis-Signature: t=<unix seconds>,v1=<hex>`; `t` must be within 5 minutes of the server clock. GitHub\'s `X-Hub-Signature-256: sha256=<hex HMAC of the body>` is accepted too. A replay of the same signed request, the same `X-GitHub-Delivery` or the same `Idempotency-Key` answers with the first run (`reused: true`). With a callback URL, the run\'s answer is POSTed there when it ends, signed the same way.',
  auth: 'signed',
  params: z.object({ id: idSchema().meta({ description: 'Webhook id.' }) }),
  body: { kind: 'raw', description: '`application/json`: a JSON object sent to the head as its payload; anything else: a document.' },
  response: { status: 201, description: 'Started (or, for a replay, the run started before).', schema: EntryAnswerSchema },
  errors: {
    400: 'The input was refused (`input_rejected`), the JSON does not parse, or the mesh has findings.',
    401: 'The signature is missing, malformed, outside the 5-minute window or wrong, or no enabled webhook has this id (recorded).',
    404: 'The mesh of the webhook is gone.',
    409: 'The Idempotency-Key was used before for a different request.',
  },
  async handle({ engine, params, body, request }) {
    return receiveWebhook(await engine(), { webhookId: params.id, headers: request.headers, body: body.bytes });
  },
});
