/** The built-in `code` step: the author's JavaScript in a sandboxed child process (steps/code-sandbox.ts). */
import { runCodeStep } from './code-sandbox';
import type { EffectStep } from './types';

/** An effect step; the message id and the effect's key reach the code as its context. */
export const codeStep: EffectStep<'code'> = {
  lane: 'effect',
  run: (memberId, step, payload, ctx, key) => runCodeStep(memberId, step, payload, ctx.run?.signal, { messageId: ctx.run?.messageId ?? key, idempotencyKey: key }, ctx.policy),
};
