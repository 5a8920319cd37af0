/** The built-in `agent` step: one model call through the engine's agent runner, as an agent member would make it. */
import type { AgentMember, AgentStep } from '@trellis/mesh/schema';
import { StepError } from '../../../kernel/errors';
import { isObject } from './payload';
import type { EffectStep, StepContext, StepRun } from './types';

/** An effect step (see {@link runAgentStep}). */
export const agentStep: EffectStep<'agent'> = {
  lane: 'effect',
  run: (memberId, step, payload, ctx, key) => runAgentStep(memberId, step, payload, ctx, key),
};

/** The agent member an agent step stands for: the workflow's id, the step's settings. */
export function agentOfStep(memberId: string, step: AgentStep): AgentMember {
  const { type: _type, output: _output, ...fields } = step;
  return { id: memberId, kind: 'agent', ...fields };
}

/**
 * Runs an agent step through the engine's agent runner under the agent time limit; `output:
 * 'merge'` spreads an object answer over the payload, `replace` makes the answer the payload.
 * @throws StepError `timed_out` past the limit, or the runner's own cause.
 */
export async function runAgentStep(memberId: string, step: AgentStep, payload: unknown, ctx: StepContext, key = ''): Promise<unknown> {
  const limit = ctx.agentTimeoutMs;
  const controller = new AbortController();
  const stop = () => controller.abort(ctx.run?.signal.reason);
  ctx.run?.signal.addEventListener('abort', stop, { once: true });
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(new StepError('timed_out', memberId, `its agent step took longer than ${limit / 1000} s`));
    }, limit);
  });
  try {
    const answer = await Promise.race([ctx.runAgent(agentOfStep(memberId, step), payload, controller.signal, { idempotencyKey: key, ...(ctx.policy ? { guard: ctx.policy } : {}), ...runPlace(ctx.run) }), deadline]);
    if (step.output === 'merge' && isObject(answer)) return { ...(isObject(payload) ? payload : {}), ...answer };
    return answer;
  } finally {
    clearTimeout(timer);
    ctx.run?.signal.removeEventListener('abort', stop);
  }
}

/** The run, mesh and message of a delivery, for an agent call's budget and trail. */
function runPlace(run: StepRun | undefined): { runId?: string; meshId?: string; messageId?: string } {
  if (!run) return {};
  return { messageId: run.messageId, ...(run.runId ? { runId: run.runId } : {}), ...(run.meshId ? { meshId: run.meshId } : {}) };
}
