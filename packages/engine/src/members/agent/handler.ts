/** The agent kind: a model call on a worker pool, under the agent deadline and the delivery's lease. */
import { runDemoAgent } from '../../kernel/demo-agent';
import { StepError } from '../../kernel/errors';
import type { KindHandler } from '../types';

/** Lane `heavy`; `executeHeavy` goes through the engine's agent runner (runtime/agent-runner.ts). */
export const agentKind: KindHandler<'agent'> = {
  lane: () => 'heavy',
  execute(member, msg) {
    const start = { payload: msg.payload, frames: msg.frames, void: msg.void };
    return msg.void ? [start] : [{ ...start, payload: runDemoAgent(member, msg.payload) }];
  },
  async executeHeavy(run, member, msg) {
    if (msg.void) return agentKind.execute(member, msg);
    const { engine, signal: leaseSignal } = run;
    const limit = engine.config.agentTimeoutMs;
    const signal = AbortSignal.any([AbortSignal.timeout(limit), leaseSignal]);
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new StepError('timed_out', member.id, `the agent took longer than ${limit / 1000} s`)), limit);
    });
    const stopped = new Promise<never>((_, reject) => {
      leaseSignal.addEventListener('abort', () => reject(leaseSignal.reason instanceof Error ? leaseSignal.reason : new Error('stopped')), { once: true });
    });
    stopped.catch(() => undefined);
    try {
      await run.guard();
      const payload = await Promise.race([engine.runAgent(member, msg.payload, signal, { idempotencyKey: msg.id, guard: engine.guard, messageId: msg.id, ...(run.runId ? { runId: run.runId } : {}), ...(run.meshId ? { meshId: run.meshId } : {}) }), deadline, stopped]);
      return [{ payload, frames: msg.frames, void: false }];
    } finally {
      clearTimeout(timer);
    }
  },
};
