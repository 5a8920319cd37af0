/**
 * A workflow whose steps are all inline (split, map, pass): a pure function of the message, run
 * inside the commit transaction. Errors are `StepError`s carrying a cause. Heavy workflows run in
 * members/workflow/heavy.ts.
 */
import type { Step, WorkflowMember } from '@trellis/mesh/schema';
import { StepError } from '../../kernel/errors';
import type { Item } from '../../plan/frames';
import type { Incoming } from '../types';
import { stepOf } from './steps/handlers';

/**
 * Runs a workflow whose steps are all inline on one message and returns its outputs, in order.
 * A void message passes through unchanged, except that a split pushes its own empty frame.
 * @throws StepError `step_code_failed` for a bad field, or a heavy step given a real item.
 */
export function runInlineSteps(member: WorkflowMember, msg: Incoming): Item[] {
  let items: Item[] = [{ payload: msg.payload, frames: msg.frames, void: msg.void }];
  let splitSeen = false;
  member.steps.forEach((step, s) => {
    const first = !splitSeen && items.length === 1;
    items = items.flatMap((item, i) => applyStep(member.id, step, item, splitKey(msg.id, s, i, first)));
    const handler = stepOf(step);
    if (handler.lane === 'inline' && handler.splits) splitSeen = true;
  });
  return items;
}

/**
 * The key a split step writes into its frames, which its combine joins on: the message id for the
 * first split of a message (`first`: no split before it and one item), else `<message id>/<step
 * index>/<item index>`, so every later split in the same workflow has a key of its own.
 */
export function splitKey(messageId: string, step: number, item: number, first: boolean): string {
  return first ? messageId : `${messageId}/${step}/${item}`;
}

/**
 * Applies one built-in step to one item. Heavy steps (lanes `effect` and `unpack`) run in
 * members/workflow/heavy.ts on a worker pool; here they only pass a void item through (an unpack
 * step with its own empty split frame).
 * @throws StepError `step_code_failed` for a bad field, or a heavy step given a real item.
 */
export function applyStep(memberId: string, step: Step, item: Item, key: string): Item[] {
  const handler = stepOf(step);
  switch (handler.lane) {
    case 'inline':
      return handler.apply(memberId, step, item, key);
    case 'effect':
      if (item.void) return [item];
      throw new StepError('step_code_failed', memberId, `a ${step.type} step runs on a worker pool, not inline`, false);
    case 'unpack':
      if (item.void) return [{ ...item, frames: [...item.frames, { split: key, index: 0, count: 0 }] }];
      throw new StepError('step_code_failed', memberId, `an ${step.type} step runs on a worker pool, not inline`, false);
  }
}
