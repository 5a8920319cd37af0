/** The built-in `map` step: a new payload whose fields are copied from (dotted) fields of the old one. */
import { getField } from '../../../plan/frames';
import type { InlineStep } from './types';

/** Inline; a void item passes through, a missing source field becomes null (`getField`). */
export const mapStep: InlineStep<'map'> = {
  lane: 'inline',
  apply(_memberId, step, item) {
    if (item.void) return [item];
    const out: Record<string, unknown> = {};
    for (const [to, from] of Object.entries(step.fields)) out[to] = getField(item.payload, from);
    return [{ ...item, payload: out }];
  },
};
