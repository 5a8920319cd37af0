/** The counts a pruned run keeps on its row (`runs.summary`, written by runtime/retention.ts). */
import { z } from 'zod';
import type { MemberCounts, RunCounts } from './counts';

/** What a pruned run keeps of its counts: the same shapes as runs/counts.ts. */
export interface StoredSummary {
  counts: RunCounts;
  memberCounts: Record<string, MemberCounts>;
}

const n = z.number().int().nonnegative();
const MemberCountsSchema = z.object({ published: n, done: n, deadLettered: n, lost: n, pending: n, running: n, parked: n, filtered: n });
const SummarySchema = z.object({
  counts: MemberCountsSchema.extend({ delivered: n, cancelled: n }),
  memberCounts: z.record(z.string(), MemberCountsSchema),
});

/** The stored summary of a run row, or null when it has none (or it is malformed). */
export function storedSummary(summary: unknown): StoredSummary | null {
  const parsed = SummarySchema.safeParse(summary);
  return parsed.success ? parsed.data : null;
}
