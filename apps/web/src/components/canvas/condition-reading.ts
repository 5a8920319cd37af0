/**
 * How the channel panel reads a condition as it is typed, with the same parser the engine and the
 * validator use. Positions are told to people 1-based ("at character 10" for offset 9), the same
 * number the findings list shows (packages/mesh ConditionError).
 */
import { ConditionError, formatCondition, parseCondition } from '@trellis/mesh/condition';

/** Nothing typed; the grouping read; or why and where it could not be read (`position` 0-based, for the caret). */
export type ConditionReading =
  | { kind: 'none' }
  | { kind: 'ok'; grouping: string }
  | { kind: 'error'; message: string; position: number; where: string };

/** Reads `when` (a channel condition; blank means none). Never throws. */
export function readCondition(when: string | undefined): ConditionReading {
  if (!when?.trim()) return { kind: 'none' };
  try {
    return { kind: 'ok', grouping: formatCondition(parseCondition(when)) };
  } catch (err) {
    // The heading says where and the caret points at it; the sentence need not repeat it.
    if (err instanceof ConditionError) return { kind: 'error', message: err.detail, position: err.position, where: `at character ${err.position + 1}` };
    return { kind: 'error', message: 'the condition could not be read', position: 0, where: 'at character 1' };
  }
}
