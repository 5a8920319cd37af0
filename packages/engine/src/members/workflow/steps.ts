/**
 * A workflow's inline steps (split, map, pass): pure functions of the message; errors are
 * `StepError`s carrying a cause. Heavy steps run in members/workflow/heavy-steps.ts.
 */
import { splitText } from '@trellis/mesh/split';
import type { Step, WorkflowMember } from '@trellis/mesh/schema';
import { StepError } from '../../kernel/errors';
import { fieldObject, getField, type Item } from '../../plan/frames';
import type { Incoming } from '../types';

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
    if (step.type === 'split') splitSeen = true;
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
 * Applies one built-in step to one item. Heavy steps (code, sql, http, agent) run in
 * members/workflow/heavy-steps.ts on a worker pool; here they only pass a void item through.
 * @throws StepError `step_code_failed` for a bad field, or a heavy step given a real item.
 */
export function applyStep(memberId: string, step: Step, item: Item, key: string): Item[] {
  switch (step.type) {
    case 'code':
    case 'sql':
    case 'http':
    case 'agent':
      if (item.void) return [item];
      throw new StepError('step_code_failed', memberId, `a ${step.type} step runs on a worker pool, not inline`, false);
    case 'email':
      // A split whose parsing is asynchronous: members/workflow/heavy-steps.ts runs it (members/workflow/steps/email.ts).
      if (item.void) return [{ ...item, frames: [...item.frames, { split: key, index: 0, count: 0 }] }];
      throw new StepError('step_code_failed', memberId, 'an email step runs on a worker pool, not inline', false);
    case 'pass':
      return [item];
    case 'map': {
      if (item.void) return [item];
      const out: Record<string, unknown> = {};
      for (const [to, from] of Object.entries(step.fields)) out[to] = getField(item.payload, from);
      return [{ ...item, payload: out }];
    }
    case 'split': {
      if (item.void) return [{ ...item, frames: [...item.frames, { split: key, index: 0, count: 0 }] }];
      const text = getField(item.payload, step.field);
      if (typeof text !== 'string') {
        // A throwing step is retried with backoff before it is dead-lettered (DESIGN §3): the
        // engine cannot tell a step that always throws from one that throws once.
        throw new StepError('step_code_failed', memberId, `field ${step.field} is ${text === null ? 'missing' : `not text (${typeof text})`}, so it cannot be split`);
      }
      const parts = splitText(text, step.by);
      if (parts.length === 0) {
        return [{ payload: {}, frames: [...item.frames, { split: key, index: 0, count: 0 }], void: true }];
      }
      return parts.map((part, index) => ({
        payload: fieldObject(step.field, part),
        frames: [...item.frames, { split: key, index, count: parts.length }],
        void: false,
      }));
    }
  }
}
