/** The built-in `pass` step: the item goes on unchanged. */
import type { InlineStep } from './types';

/** Inline; returns the item as it came. */
export const passStep: InlineStep<'pass'> = {
  lane: 'inline',
  apply: (_memberId, _step, item) => [item],
};
