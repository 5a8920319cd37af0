/** The built-in `code` step: the author's JavaScript in a sandboxed child process (steps/code-sandbox.ts). */
import { runCodeStep } from './code-sandbox';
import { sandboxOwner } from './sandbox-owner';
import type { EffectStep } from './types';

/**
 * An effect step; the message id and the effect's key reach the code as its context. In a delivery
 * the code runs in a warm sandbox process of its mesh version and author (sandbox-owner.ts).
 */
export const codeStep: EffectStep<'code'> = {
  lane: 'effect',
  run: async (memberId, step, payload, ctx, key) =>
    runCodeStep(memberId, step, payload, ctx.run?.signal, { messageId: ctx.run?.messageId ?? key, idempotencyKey: key }, ctx.policy, await sandboxOwner(ctx.db, ctx.run)),
};
