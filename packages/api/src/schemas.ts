/** Output schemas shared by several procedures (inputs live next to their procedure). */
import { z } from 'zod';
import { FINDING_CODES } from '@trellis/mesh/findings';
import { AdmissionSchema } from '@trellis/engine/runs/admission-verdict';

export const FindingSchema = z.object({
  code: z.enum(FINDING_CODES),
  severity: z.enum(['error', 'warning']),
  member: z.string().optional(),
  channel: z.string().optional(),
  field: z.string().optional(),
  message: z.string(),
});

/** What a save or an import answers: saved (maybe unchanged), or refused with findings. */
export const SaveResultSchema = z.discriminatedUnion('ok', [
  z.object({
    ok: z.literal(true),
    meshId: z.string(),
    name: z.string(),
    version: z.number().int(),
    created: z.boolean(),
    unchanged: z.boolean(),
    findings: z.array(FindingSchema),
  }),
  z.object({
    ok: z.literal(false),
    reason: z.enum(['invalid', 'conflict']),
    findings: z.array(FindingSchema),
    latestVersion: z.number().int().optional(),
    message: z.string(),
  }),
]);

/** True when `text` holds a control character (U+0000–U+001F, U+007F), which no id has; Postgres text cannot hold U+0000 at all. */
export function hasControlCharacter(text: string): boolean {
  // eslint-disable-next-line no-control-regex
  return /[\u0000-\u001f\u007f]/.test(text);
}

/** An id of ours (1 to `max` characters, no control characters): refused with a clear message before it reaches SQL. */
export function idSchema(max = 64) {
  return z.string().min(1).max(max).refine((s) => !hasControlCharacter(s), { message: 'must not contain control characters (such as NUL)' });
}

/** Mesh ids are UUIDv7 text; anything longer is not one of ours. */
export const MeshIdSchema = idSchema();
/** Run ids are UUIDv7 text, like mesh ids. */
export const RunIdSchema = idSchema();

/** Run states (DESIGN.md §1). */
export const RUN_STATUSES = ['queued', 'running', 'done', 'failed', 'stalled', 'cancelled'] as const;
/** Message states (packages/db messages schema). */
export const MESSAGE_STATUSES = ['pending', 'running', 'done', 'dead', 'lost', 'parked', 'cancelled', 'filtered'] as const;

const count = z.number().int().nonnegative();

export const RunCountsSchema = z.object({
  published: count,
  delivered: count,
  done: count,
  deadLettered: count,
  lost: count,
  pending: count,
  running: count,
  parked: count,
  cancelled: count,
  /** Parts routing dropped (never sent, so not in `published`); each was counted as skipped at its combines. */
  filtered: count,
});

export const MemberCountsSchema = RunCountsSchema.omit({ delivered: true, cancelled: true });

export const RunSummarySchema = z.object({
  id: z.string(),
  meshId: z.string(),
  meshName: z.string(),
  meshVersion: z.number().int(),
  status: z.string(),
  cause: z.string().nullable(),
  causeMember: z.string().nullable(),
  causeMessage: z.string().nullable(),
  inputName: z.string().nullable(),
  createdBy: z.string().nullable(),
  createdAt: z.date(),
  startedAt: z.date().nullable(),
  endedAt: z.date().nullable(),
  movedAt: z.date(),
  seconds: z.number(),
  counts: RunCountsSchema,
  /** When retention pruned the run's message trail (its counts are the stored ones), else null. */
  prunedAt: z.date().nullable(),
  /** The admission verdict taken when the run started (engine runs/admission.ts), else null. */
  admission: AdmissionSchema.nullable().meta({ description: 'The admission verdict: now, wait (resource, pool, messages ahead, an estimate, a sentence) or refused (the cap).' }),
  /** The verdict in words while it waits, once it waited, or when it was refused; null when it ran at once. */
  admissionLine: z.string().nullable(),
  /** Its messages go ahead of normal work on every pool (runs.markUrgent). */
  urgent: z.boolean(),
});
