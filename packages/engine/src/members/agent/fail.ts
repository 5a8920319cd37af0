/**
 * The one way agent code fails: a `StepError` (see ../errors) carrying a cause from the fixed list
 * (DESIGN.md §4) and the member's id, so the engine names both on the run.
 */
import type { Cause } from '@trellis/mesh/causes';
import type { AgentMember } from '@trellis/mesh/schema';
import { StepError } from '../../kernel/errors';

/**
 * Builds the error for a failed agent.
 * @param detail what happened, in plain words, without the member id (the engine adds it).
 * @param retryable whether another attempt of the same message could succeed.
 */
export function agentFailure(member: AgentMember, cause: Cause, detail: string, retryable: boolean): StepError {
  return new StepError(cause, member.id, detail, retryable);
}
