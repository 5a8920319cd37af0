/** The built-in `split` step: one text field cut into parts (`splitText`), one item per part. */
import { splitText } from '@trellis/mesh/split';
import { StepError } from '../../../kernel/errors';
import { fieldObject, getField } from '../../../plan/frames';
import type { InlineStep } from './types';

/**
 * Inline. Each part carries the frame `{ split: key, index, count }`; a void item, or a text with no
 * part, gives one void item with the empty frame `{ split: key, index: 0, count: 0 }`.
 * @throws StepError `step_code_failed` (retryable) when the field is missing or not text.
 */
export const splitStep: InlineStep<'split'> = {
  lane: 'inline',
  splits: true,
  apply(memberId, step, item, key) {
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
  },
};
