/**
 * Sending runs' answers to webhook callback URLs (the orchestrator's entry loop, runtime/entry-loops.ts).
 * A `run_callbacks` row is written with the run's start; once the run has ended (done, failed or
 * cancelled) a pass claims it under a 30-second lease (`for update skip locked`, so two
 * orchestrators never send one attempt twice at once), POSTs the answer signed like a webhook
 * request (`Trellis-Signature: t=…,v1=…`), and marks it `delivered` on a 2xx. Any other outcome
 * (an error status, a timeout, an egress refusal) is retried after 2^attempts × base delay (1 s,
 * 2 s, 4 s, … capped at an hour), until {@link CALLBACK_ATTEMPTS} attempts, then `failed`, with the
 * last error kept. Delivery is at least once: receivers dedupe by `Trellis-Delivery` (the run id).
 */
import { sql } from 'drizzle-orm';
import { z } from 'zod';
import type { Engine } from '../kernel/engine';
import { rows } from '../kernel/sql';
import { runStatuses } from '../kernel/statuses';
import { getRun } from '../runs/get-run';
import { answerOf } from '../runs/wait-answer';
import { WEBHOOK_SECRET_HOST } from './manage-webhooks';
import { signatureHeader } from './signature';

/** Attempts per callback before it is marked `failed`. */
export const CALLBACK_ATTEMPTS = 8;
/** Longest wait for a callback URL to answer, in ms. */
export const CALLBACK_TIMEOUT_MS = 10_000;

/** Options of one pass; the defaults suit production, tests shorten the delay. */
export interface CallbackPassOptions {
  /** First retry delay in ms (default 1 000), doubled per attempt, capped at an hour. */
  baseDelayMs?: number;
  attempts?: number;
  /** Most callbacks one pass sends (default 20). */
  batch?: number;
}

/** A callback claimed for sending, as the claim query returns it. */
const ClaimedRow = z.object({ run_id: z.string(), url: z.string(), attempts: z.number().int(), secret_name: z.string().nullable() });
type Claimed = z.infer<typeof ClaimedRow>;

/** Sends the answer of one ended run; returns null on a 2xx, else the error to keep. */
async function send(engine: Engine, c: Claimed): Promise<string | null> {
  const view = await getRun(engine.db, c.run_id);
  if (!view) return 'the run no longer exists';
  if (!c.secret_name) return 'the webhook was removed';
  const secret = await engine.guard.secretFor(c.secret_name, new URL(`https://${WEBHOOK_SECRET_HOST}/`), 'a webhook callback');
  const body = JSON.stringify({ event: 'run.ended', ...answerOf(view) });
  try {
    const res = await engine.guard.fetch(c.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'trellis-signature': signatureHeader(secret, body),
        'trellis-delivery': c.run_id,
        'idempotency-key': `run-callback:${c.run_id}`,
      },
      body,
      redirect: 'manual',
      signal: AbortSignal.timeout(CALLBACK_TIMEOUT_MS),
    });
    await res.body?.cancel().catch(() => undefined);
    return res.ok ? null : `the callback URL answered HTTP ${res.status}`;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}

/**
 * One pass: claims due callbacks of ended runs and sends them.
 * @returns how many were delivered and how many failed this pass (retried or given up).
 */
export async function deliverCallbacks(engine: Engine, options: CallbackPassOptions = {}): Promise<{ delivered: number; failed: number }> {
  const base = options.baseDelayMs ?? 1000;
  const max = options.attempts ?? CALLBACK_ATTEMPTS;
  const claimed = await rows(
    engine.db,
    sql`update run_callbacks c set lease_until = now() + interval '30 seconds'
          from (select c2.run_id from run_callbacks c2 join runs r on r.id = c2.run_id
                 where c2.state = 'waiting' and c2.next_at <= now()
                   and (c2.lease_until is null or c2.lease_until < now())
                   and r.status in ${runStatuses('done', 'failed', 'cancelled')}
                 order by c2.next_at limit ${options.batch ?? 20}
                 for update of c2 skip locked) due
         where c.run_id = due.run_id
     returning c.run_id, c.url, c.attempts, (select w.secret_name from webhooks w where w.id = c.webhook_id) as secret_name`,
    ClaimedRow,
  );
  let delivered = 0;
  let failed = 0;
  for (const c of claimed) {
    const error = await send(engine, c);
    const attempts = c.attempts + 1;
    if (error === null) {
      delivered++;
      await engine.db.execute(sql`update run_callbacks set state = 'delivered', attempts = ${attempts}, delivered_at = now(), lease_until = null, last_error = null where run_id = ${c.run_id}`);
      continue;
    }
    failed++;
    const delayMs = Math.min(base * 2 ** c.attempts, 3_600_000);
    const state = attempts >= max ? 'failed' : 'waiting';
    await engine.db.execute(
      sql`update run_callbacks set state = ${state}, attempts = ${attempts}, last_error = ${error.slice(0, 500)},
                 next_at = now() + ${delayMs} * interval '1 millisecond', lease_until = null
           where run_id = ${c.run_id}`,
    );
  }
  return { delivered, failed };
}
