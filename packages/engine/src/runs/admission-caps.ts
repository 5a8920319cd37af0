/**
 * Admission's up-front check of the admin's caps on what one mesh author may take
 * (security/env.ts): a run that would certainly pass one is refused before it starts, naming the
 * cap and the policy that sets it, instead of failing part-way after it has used capacity.
 *
 * - TRELLIS_MAX_SPLIT_BRANCHES: the head's first step is a split of the input, and the input's text
 *   already has more parts than the cap (the split would fail `budget_spent` on its first delivery).
 * - TRELLIS_SANDBOX_MEMORY_MB: a code step of the mesh asks for a sandbox larger than the memory all
 *   the sandboxes of one worker may hold (it could never start).
 *
 * Pure apart from reading the caps of the process.
 */
import type { Member } from '@trellis/mesh/schema';
import { splitText } from '@trellis/mesh/split';
import { getField } from '../plan/frames';
import { limits, LIMIT_VARIABLE, type Limits } from '../security/env';
import { SANDBOX_PROCESS_MB } from '../security/sandbox-slots';

/** A refusal: the cap (`policy <VARIABLE>`) and what passes it, in words. */
export interface CapRefusal {
  cap: string;
  sentence: string;
}

/**
 * The first cap the run of `members` (head first) on `payload` would certainly pass, or undefined.
 * `caps` defaults to the process's (security/env.ts `limits()`).
 */
export function capRefusal(head: Member, members: Iterable<Member>, payload: unknown, caps: Pick<Limits, 'maxSplitBranches' | 'sandboxMemoryMb'> = limits()): CapRefusal | undefined {
  const first = head.kind === 'workflow' ? head.steps[0] : undefined;
  if (first?.type === 'split') {
    const text = getField(payload, first.field);
    // Every part has at least one character: a text no longer than the cap cannot pass it.
    if (typeof text === 'string' && text.length > caps.maxSplitBranches) {
      const parts = splitText(text, first.by).length;
      if (parts > caps.maxSplitBranches) {
        return {
          cap: `policy ${LIMIT_VARIABLE.maxSplitBranches}`,
          sentence: `the head ${head.id} would split the input's ${first.field} into ${parts} parts by ${first.by}, over the cap of ${caps.maxSplitBranches}`,
        };
      }
    }
  }
  for (const m of members) {
    if (m.kind !== 'workflow') continue;
    for (const [i, step] of m.steps.entries()) {
      if (step.type !== 'code') continue;
      const mb = step.memoryMb + SANDBOX_PROCESS_MB;
      if (mb > caps.sandboxMemoryMb) {
        return {
          cap: `policy ${LIMIT_VARIABLE.sandboxMemoryMb}`,
          sentence: `code step ${i + 1} of member ${m.id} needs a ${mb} MB sandbox (${step.memoryMb} MB for the code), over the ${caps.sandboxMemoryMb} MB all sandboxes of a worker may hold`,
        };
      }
    }
  }
  return undefined;
}
