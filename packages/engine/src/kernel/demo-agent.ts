/**
 * The engine's default agent runner (kernel/engine.ts) and the `agent` kind's inline execution.
 */
import type { AgentMember } from '@trellis/mesh/schema';
import { StepError } from './errors';

/**
 * The built-in `demo` model, the engine's default agent runner: answers with the payload and the
 * member's id (`{ ...payload, agent: id }`). Real models are plugged in through the engine's
 * `runAgent` option.
 * @throws StepError `agent_or_model_missing` (not retryable) for any other model.
 */
export function runDemoAgent(member: AgentMember, payload: unknown): unknown {
  if (member.model !== 'demo') {
    throw new StepError(
      'agent_or_model_missing',
      member.id,
      `model ${member.model} is not available: no model provider is configured, only the built-in demo model`,
      false,
    );
  }
  const base = typeof payload === 'object' && payload !== null && !Array.isArray(payload) ? payload : { value: payload };
  return { ...base, agent: member.id };
}
