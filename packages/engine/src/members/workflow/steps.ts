/**
 * Executing members that need no database: workflow steps (split, map, pass) and the demo agent.
 * Pure functions of the message; errors are `StepError`s carrying a cause.
 */
import { splitText } from '@trellis/mesh/split';
import type { AgentMember, Member, Step } from '@trellis/mesh/schema';
import { StepError } from '../../kernel/errors';
import { fieldObject, getField, type Frame, type Item } from '../../plan/frames';

/** What a member receives. */
export interface Incoming {
  id: string;
  payload: unknown;
  frames: Frame[];
  void: boolean;
}

/**
 * Runs a non-combine member on one message and returns its outputs, in order.
 * A void message passes through unchanged, except that a split pushes its own empty frame.
 * @throws StepError (`agent_or_model_missing` for an agent without a usable model,
 *   `step_code_failed` for a bad field, or a service or nested-mesh message that reached here instead of
 *   parking).
 */
export function executeMember(member: Member, msg: Incoming): Item[] {
  const start: Item = { payload: msg.payload, frames: msg.frames, void: msg.void };
  switch (member.kind) {
    case 'workflow': {
      let items = [start];
      let splitSeen = false;
      member.steps.forEach((step, s) => {
        const first = !splitSeen && items.length === 1;
        items = items.flatMap((item, i) => applyStep(member.id, step, item, splitKey(msg.id, s, i, first)));
        if (step.type === 'split') splitSeen = true;
      });
      return items;
    }
    case 'agent':
      return msg.void ? [start] : [{ ...start, payload: runDemoAgent(member, msg.payload) }];
    case 'combine':
      throw new Error('a combine is executed by the join, not here');
    case 'mesh':
    case 'service':
      if (msg.void) return [start];
      throw new StepError(
        'step_code_failed',
        member.id,
        `a ${member.kind} member's message parks (process/park.ts) and is never run in place`,
        false,
      );
  }
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
