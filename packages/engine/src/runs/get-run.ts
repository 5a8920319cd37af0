/** Use case: one run with its accounting. */
import { eq } from 'drizzle-orm';
import type { Db } from '@trellis/db/client';
import { runs } from '@trellis/db/schema/runs';
import { countRun, type MemberCounts, type RunCounts } from './counts';
import { stripPrototypeKeys } from '../security/json-guard';
import { storedSummary } from './summary';
import { admissionLine, storedAdmission, type Admission } from './admission-verdict';

/** A run in a list: its state, its cause when it failed, and its counts. */
export interface RunSummary {
  id: string;
  meshId: string;
  meshName: string;
  meshVersion: number;
  /** queued | running | done | failed | stalled */
  status: string;
  /** One of the cause list when the run failed or stalled. */
  cause: string | null;
  causeMember: string | null;
  /** A plain sentence naming the member and the detail. */
  causeMessage: string | null;
  inputName: string | null;
  createdBy: string | null;
  createdAt: Date;
  startedAt: Date | null;
  endedAt: Date | null;
  movedAt: Date;
  /** Seconds from start to end (or to now while it runs). */
  seconds: number;
  /** Counts from the trail, or for a pruned run the ones stored when it was pruned. */
  counts: RunCounts;
  /** When retention pruned the run's messages (its trail), else null; the run row and counts stay. */
  prunedAt: Date | null;
  /** The admission verdict taken when it started (runs/admission.ts), or null for runs from before admission. */
  admission: Admission | null;
  /** The verdict in words while it waits, once it waited, or when it was refused; null when it ran at once. */
  admissionLine: string | null;
  /** Its messages go on the urgent lanes (kernel/priority.ts, runs/mark-urgent.ts). */
  urgent: boolean;
}

/** A run in full. */
export interface RunView extends RunSummary {
  input: unknown;
  /** The payload of the last leaf message (a member with no outgoing channel), or null. */
  output: unknown;
  memberCounts: Record<string, MemberCounts>;
  /** For a child run of a nested-mesh member: the parent run, else null. */
  parentRunId: string | null;
}

type RunRow = typeof runs.$inferSelect;

/** Seconds a run took (or has taken so far), to the millisecond. */
export function runSeconds(row: Pick<RunRow, 'startedAt' | 'createdAt' | 'endedAt'>): number {
  const start = (row.startedAt ?? row.createdAt).getTime();
  const end = row.endedAt ? row.endedAt.getTime() : Date.now();
  return Math.max(0, Math.round(end - start)) / 1000;
}

/** The summary fields of a run row. */
export function summarize(row: RunRow, counts: RunCounts): RunSummary {
  const { input: _i, output: _o, summary, admission: rawAdmission, ...rest } = row;
  const stored = row.prunedAt ? storedSummary(summary) : null;
  const admission = storedAdmission(rawAdmission);
  return { ...rest, seconds: runSeconds(row), counts: stored?.counts ?? counts, admission, admissionLine: admissionLine(admission) };
}

/** Returns the run with counts per status and per member, or null when there is no such run. */
export async function getRun(db: Db, runId: string): Promise<RunView | null> {
  const [row] = await db.select().from(runs).where(eq(runs.id, runId));
  if (!row) return null;
  const { counts, memberCounts } = (row.prunedAt ? storedSummary(row.summary) : null) ?? (await countRun(db, runId));
  // Prototype keys are dropped as on the trail (runs/list-messages.ts): the page's serializer refuses them.
  return { ...summarize(row, counts), input: stripPrototypeKeys(row.input), output: stripPrototypeKeys(row.output), memberCounts, parentRunId: row.parentRunId };
}
