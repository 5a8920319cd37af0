/**
 * Use case: a request to a signed webhook (`POST /api/v1/hooks/{id}`). The signature is checked
 * over the raw body first (signature.ts); a refusal is recorded in `webhook_refusals` and answered
 * 401 `signature_invalid`, whatever else is wrong. A signed request starts a run of the webhook's
 * mesh through the one entry use case: a JSON body (`application/json`) is the head's payload,
 * any other body a document. A replay of the same signed request (inside the window, or GitHub's
 * same `X-GitHub-Delivery`) answers with the first run; so does a request repeating an
 * `Idempotency-Key`. With a callback URL, the run's answer is owed to it (run_callbacks) in the
 * transaction that starts the run.
 */
import { eq } from 'drizzle-orm';
import { runCallbacks, webhookRefusals, webhooks } from '@trellis/db/schema/webhooks';
import { SYSTEM_ACTOR } from '../audit/append';
import type { Engine } from '../kernel/engine';
import { BadInputError } from '../kernel/errors';
import type { RunInput } from '../kernel/input';
import { startEntryRun, type EntryRunAnswer } from '../runs/start-entry-run';
import { WEBHOOK_SECRET_HOST } from './manage-webhooks';
import { verifySignature } from './signature';
import { WebhookSignatureError } from './errors';

/** A request as the webhook route received it. */
export interface WebhookRequest {
  webhookId: string;
  headers: Headers;
  /** The raw body, exactly as sent (the signature covers these bytes). */
  body: Uint8Array;
  /** The receiver's clock, for the replay window (default now). */
  nowMs?: number;
}

async function refuse(engine: Engine, webhookId: string, reason: string, detail: string): Promise<never> {
  await engine.db.insert(webhookRefusals).values({ webhookId: webhookId.slice(0, 100), reason, detail });
  throw new WebhookSignatureError(detail);
}

function inputOf(headers: Headers, body: Uint8Array): RunInput {
  const name = headers.get('x-file-name') ?? undefined;
  if (!/^application\/([\w.-]+\+)?json\s*(;|$)/i.test(headers.get('content-type') ?? '')) return { ...(name ? { name } : {}), bytes: body };
  try {
    return { ...(name ? { name } : {}), payload: JSON.parse(new TextDecoder().decode(body)) as unknown };
  } catch {
    throw new BadInputError('body: not valid JSON (send a JSON object, or another Content-Type for a document)');
  }
}

/**
 * @throws WebhookSignatureError (401) for an unknown or disabled webhook or a bad signature
 *   (recorded); BadInputError for JSON that does not parse; and what startEntryRun throws
 *   (InputRejectedError, MeshInvalidError, MeshNotFoundError, IdempotencyConflictError).
 */
export async function receiveWebhook(engine: Engine, req: WebhookRequest): Promise<EntryRunAnswer> {
  const [hook] = await engine.db.select().from(webhooks).where(eq(webhooks.id, req.webhookId)).limit(1);
  // The same answer for an unknown webhook as for a wrong signature: a caller learns nothing of ids.
  if (!hook?.enabled) return refuse(engine, req.webhookId, 'unknown', 'no enabled webhook has this id, or the signature is wrong');
  const secret = await engine.guard.secretFor(hook.secretName, new URL(`https://${WEBHOOK_SECRET_HOST}/`), `the webhook ${hook.name}`);
  const check = verifySignature(req.headers, req.body, secret, req.nowMs);
  if (!check.ok) return refuse(engine, hook.id, check.reason, check.detail);
  const given = req.headers.get('idempotency-key');
  const key = `webhook:${hook.id}:${given ? `k:${given.slice(0, 150)}` : check.replayKey}`;
  return startEntryRun(engine, {
    mesh: { id: hook.meshId },
    input: inputOf(req.headers, req.body),
    idempotencyKey: key,
    entry: 'webhook',
    actor: SYSTEM_ACTOR,
    via: `webhook:${hook.name}`,
    ...(hook.callbackUrl
      ? {
          commitWith: async (tx, runId) => {
            await tx.insert(runCallbacks).values({ runId, webhookId: hook.id, url: hook.callbackUrl ?? '' });
          },
        }
      : {}),
  });
}
