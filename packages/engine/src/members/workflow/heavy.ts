/**
 * Workflows with heavy steps (code, SQL, HTTP, agent, email): run on a worker pool before the commit
 * transaction, never inside it (see process/commit.ts `prepareHeavy`). Inline steps between them run
 * exactly as in members/workflow/inline.ts. Each effect step maps one non-void item to one item with
 * a new payload; a void item passes through untouched.
 */
import type { Step, WorkflowMember } from '@trellis/mesh/schema';
import { StepError } from '../../kernel/errors';
import type { Item } from '../../plan/frames';
import { asPolicyRefusal } from '../../policy/egress';
import { PolicyRefusedError } from '../../policy/refusal';
import type { Incoming } from '../types';
import { applyStep, splitKey } from './inline';
import { isHeavyStep, stepOf } from './steps/handlers';
import type { EffectStep, StepContext } from './steps/types';

/**
 * The idempotency key of one outside effect of a delivery (DESIGN.md §3): the message id for the
 * member's first heavy step on a single item, else `<message id>/<step index>/<item index>` (the
 * same rule as split keys, `splitKey`), so every effect of a delivery has its own key and a
 * redelivery sends the same keys again.
 */
export function effectKey(messageId: string, step: number, item: number, first: boolean): string {
  return splitKey(messageId, step, item, first);
}

/** True for a workflow with at least one heavy step. */
export function hasHeavySteps(member: WorkflowMember): boolean {
  return member.steps.some(isHeavyStep);
}

/**
 * Runs every step of a workflow on one message, heavy ones included, and returns the outputs in
 * order. Split keys are those of members/workflow/inline.ts `runInlineSteps`.
 * @throws StepError with the failing step's cause (see each step's file in steps/).
 */
export async function runWorkflow(member: WorkflowMember, msg: Incoming, ctx: StepContext): Promise<Item[]> {
  let items: Item[] = [{ payload: msg.payload, frames: msg.frames, void: msg.void }];
  let splitSeen = false;
  let effectSeen = false;
  for (const [s, step] of member.steps.entries()) {
    const handler = stepOf(step);
    if (handler.lane === 'unpack') {
      // A split whose parsing is asynchronous: one item per part, keyed like a split step.
      const first = !splitSeen && items.length === 1;
      const next: Item[] = [];
      for (const [i, item] of items.entries()) next.push(...(await handler.unpack(member.id, step, item, splitKey(msg.id, s, i, first))));
      items = next;
    } else if (handler.lane === 'effect') {
      const next: Item[] = [];
      const first = !effectSeen && items.length === 1;
      // One item at a time: each may hold a process, a connection or a model call.
      for (const [i, item] of items.entries()) {
        if (item.void) {
          next.push(item);
          continue;
        }
        await ctx.run?.guard();
        const key = effectKey(msg.id, s, i, first);
        next.push({ ...item, payload: await stoppable(ctx, () => runEffect(handler, member.id, step, item.payload, ctx, key)) });
      }
      effectSeen = true;
      items = next;
    } else {
      const first = !splitSeen && items.length === 1;
      items = items.flatMap((item, i) => applyStep(member.id, step, item, splitKey(msg.id, s, i, first)));
    }
    if (handler.splits) splitSeen = true;
  }
  return items;
}

/**
 * Runs `fn`; when the delivery was stopped meanwhile (its lease lost, its run ended), throws the
 * reason instead of whatever the interrupted step threw, so the caller does not retry it.
 */
async function stoppable<T>(ctx: StepContext, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    const reason: unknown = ctx.run?.signal.reason;
    if (ctx.run?.signal.aborted && reason instanceof Error) throw reason;
    throw err;
  }
}

async function runEffect(handler: EffectStep<Step['type']>, memberId: string, step: Step, payload: unknown, ctx: StepContext, key: string): Promise<unknown> {
  try {
    return await handler.run(memberId, step, payload, ctx, key);
  } catch (err) {
    // A policy refusal is final: another attempt would be refused the same way.
    const refused = asPolicyRefusal(err);
    const failed = refused instanceof PolicyRefusedError ? new StepError('step_code_failed', memberId, `its ${step.type} step was ${refused.message}`, false) : err;
    if (failed instanceof StepError) failed.step ??= step.type;
    throw failed;
  }
}
