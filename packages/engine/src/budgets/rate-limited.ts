/**
 * Observed provider rate limits: every 429 Too Many Requests an agent's provider answers is written
 * to `model_rate_limits` (model, provider base URL, when, the retry-after asked for), and admission
 * (runs/admission.ts) makes a new run with an agent on that model and provider wait until the
 * retry-after has passed, the estimate being the time left.
 */
import { z } from 'zod';
import { sql } from 'drizzle-orm';
import type { Db } from '@trellis/db/client';
import { modelRateLimits } from '@trellis/db/schema/tools';
import { uuidv7 } from '../kernel/ids';
import { rows, textArray, timestamp } from '../kernel/sql';

/** How long a 429 without a retry-after counts, in milliseconds: one minute, the window providers' rate limits use. */
export const DEFAULT_RATE_LIMIT_MS = 60_000;

/** Observations older than this (past their window) are deleted as new ones are written, in milliseconds. */
const KEEP_MS = 24 * 3600_000;

/** One 429 answer: the model at its provider, the retry-after in ms (undefined when none was sent), and where it happened when known. */
export interface RateLimitedObservation {
  model: string;
  baseUrl: string;
  retryAfterMs: number | undefined;
  runId?: string | undefined;
  meshId?: string | undefined;
  member?: string | undefined;
  at?: Date;
}

/** Records one 429 answer (its window ends `retryAfterMs`, or {@link DEFAULT_RATE_LIMIT_MS}, after `at`), and drops that model's day-old ones. */
export async function recordRateLimited(db: Db, o: RateLimitedObservation): Promise<void> {
  const at = o.at ?? new Date();
  const until = new Date(at.getTime() + (o.retryAfterMs ?? DEFAULT_RATE_LIMIT_MS));
  await db.insert(modelRateLimits).values({
    id: uuidv7(),
    model: o.model,
    baseUrl: o.baseUrl,
    runId: o.runId ?? null,
    meshId: o.meshId ?? null,
    member: o.member ?? null,
    retryAfterMs: o.retryAfterMs === undefined ? null : Math.round(o.retryAfterMs),
    at,
    until,
  });
  await db.execute(sql`delete from model_rate_limits where model = ${o.model} and until < ${new Date(at.getTime() - KEEP_MS).toISOString()}::timestamptz`);
}

/** A model whose provider answered 429 and whose retry-after has not passed at `now`. */
export interface RateLimitedNow {
  model: string;
  baseUrl: string;
  /** The last 429's time and its retry-after (ms; null when none was sent). */
  at: Date;
  retryAfterMs: number | null;
  /** When the latest window ends. */
  until: Date;
}

/**
 * Of the (model, provider base URL) pairs, those whose provider answered 429 within its retry-after
 * window at `now`: the window ending last for each pair.
 */
export async function rateLimitedNow(db: Db, pairs: readonly { model: string; baseUrl: string }[], now: Date): Promise<RateLimitedNow[]> {
  if (pairs.length === 0) return [];
  const found = await rows(
    db,
    sql`select distinct on (model, base_url) model, base_url, at, retry_after_ms, until from model_rate_limits
         where model = any(${textArray([...new Set(pairs.map((p) => p.model))])}) and until > ${now.toISOString()}::timestamptz
         order by model, base_url, until desc`,
    z.object({ model: z.string(), base_url: z.string(), at: timestamp, retry_after_ms: z.number().nullable(), until: timestamp }),
  );
  const wanted = new Set(pairs.map((p) => `${p.model}\u0000${p.baseUrl}`));
  return found
    .filter((r) => wanted.has(`${r.model}\u0000${r.base_url}`))
    .map((r) => ({ model: r.model, baseUrl: r.base_url, at: new Date(r.at), retryAfterMs: r.retry_after_ms, until: new Date(r.until) }));
}
