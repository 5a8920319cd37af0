/**
 * The admission verdict stored on a run (`runs.admission`, taken by runs/admission.ts) and its
 * words for pages and the assistant. Pure: no database, no Redis.
 */
import { z } from 'zod';

/** What a waiting run waits for. */
export const WAIT_RESOURCES = ['worker', 'slots', 'model_rate', 'db_pool', 'user_runs', 'mesh_runs'] as const;
/** One of {@link WAIT_RESOURCES}. */
export type WaitResource = (typeof WAIT_RESOURCES)[number];

const count = z.number().int().nonnegative();

/**
 * The stored verdict (`runs.admission`). Every verdict has `sentence` (plain words) and `at` (ISO
 * time it was taken). `wait` also has `waitLimitSeconds` (how long it may wait) and, once its
 * first message started, `startedAt`.
 */
export const AdmissionSchema = z.discriminatedUnion('verdict', [
  z.object({ verdict: z.literal('now'), pool: z.string(), workers: count, slots: count, behind: count, sentence: z.string(), at: z.string() }),
  z.object({
    verdict: z.literal('wait'),
    resource: z.enum(WAIT_RESOURCES),
    pool: z.string(),
    /** Messages queued ahead on the pool. */
    behind: count,
    workers: count,
    slots: count,
    /** The model whose rate limit it waits for (`model_rate` only). */
    model: z.string().optional(),
    /** Seconds until it likely starts; null when nothing tells (no worker, no history). */
    estimateSeconds: z.number().nonnegative().nullable(),
    waitLimitSeconds: z.number().int().positive(),
    sentence: z.string(),
    at: z.string(),
    /** A run held for a concurrency limit (`user_runs`, `mesh_runs`): when the orchestrator let it start (runs/run-limits.ts). */
    releasedAt: z.string().optional(),
    /** When its first message started (set by the orchestrator). */
    startedAt: z.string().optional(),
    /** When the wait ended: it started, failed for waiting, or ended otherwise (set by the orchestrator). */
    settledAt: z.string().optional(),
  }),
  z.object({ verdict: z.literal('refused'), cap: z.string(), sentence: z.string(), at: z.string() }),
]);

/** An admission verdict. */
export type Admission = z.infer<typeof AdmissionSchema>;

/** The verdict stored on a run row, or null when it has none (or it is unreadable). */
export function storedAdmission(value: unknown): Admission | null {
  const parsed = AdmissionSchema.safeParse(value);
  return parsed.success ? parsed.data : null;
}

/**
 * The verdict in words for a run's page or row: the wait sentence while it waits, how long it
 * waited once it started, the refusal; null when it ran at once or has no verdict.
 */
export function admissionLine(admission: Admission | null): string | null {
  if (!admission || admission.verdict === 'now') return null;
  if (admission.verdict === 'refused') return admission.sentence;
  if (admission.startedAt) {
    const waited = Math.max(0, (Date.parse(admission.startedAt) - Date.parse(admission.at)) / 1000);
    return `Waited ${duration(waited)} for ${RESOURCE_WORDS[admission.resource](admission)}, then started.`;
  }
  return admission.sentence;
}

const RESOURCE_WORDS: Record<WaitResource, (a: { pool: string; model?: string | undefined }) => string> = {
  worker: (a) => `a worker on pool ${a.pool}`,
  slots: (a) => `a free slot on pool ${a.pool}`,
  model_rate: (a) => `the rate limit of model ${a.model ?? '?'}`,
  db_pool: () => 'a database connection',
  user_runs: () => 'one of its user\'s runs to finish',
  mesh_runs: () => 'one of its mesh\'s runs to finish',
};

/** A wait in words: `less than a second`, `45 s`, `3 min`, `2 h` (seconds in). */
export function duration(seconds: number): string {
  if (seconds < 1) return 'less than a second';
  if (seconds < 90) return `${Math.round(seconds)} s`;
  if (seconds < 90 * 60) return `${Math.round(seconds / 60)} min`;
  return `${Math.round(seconds / 3600)} h`;
}

/** `1 message ahead`, `120 messages ahead`. */
export function messagesAhead(n: number): string {
  return `${n} ${n === 1 ? 'message' : 'messages'} ahead`;
}

