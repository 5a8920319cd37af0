/** The workflow kind: built-in steps inline, or on a worker pool when any step is heavy. */
import type { KindHandler } from '../types';
import { hasHeavySteps, runWorkflow } from './heavy';
import { runInlineSteps } from './inline';

/** Lane `heavy` for a workflow with code, SQL, HTTP, agent or email steps, else `inline`. */
export const workflowKind: KindHandler<'workflow'> = {
  lane: (member) => (hasHeavySteps(member) ? 'heavy' : 'inline'),
  execute: runInlineSteps,
  executeHeavy(run, member, msg) {
    const { engine } = run;
    const step = { messageId: run.messageId, runId: run.runId, meshId: run.meshId, meshVersion: run.meshVersion, signal: run.signal, guard: () => run.guard() };
    return runWorkflow(member, msg, { policy: engine.guard, db: engine.db, runAgent: engine.runAgent, agentTimeoutMs: engine.config.agentTimeoutMs, run: step });
  },
};
