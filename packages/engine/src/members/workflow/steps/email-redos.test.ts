/**
 * Attacker trial: `id.pattern` `^(a|a)+$` on a subject of 34 `a`s and a `!` held the whole process
 * (JavaScript's backtracking RegExp tries 2^34 ways); each redelivery held it again. The pattern
 * now runs on RE2 (@trellis/mesh/mesh-pattern), linear in the subject.
 */
import { describe, expect, it } from 'vitest';
import { EmailStepSchema } from '@trellis/mesh/schema';
import { StepError } from '../../../kernel/errors';
import { unpackEmail } from './email';

describe('the email step id pattern', () => {
  it('answers a catastrophic pattern at once: no match, the step refuses the email', async () => {
    const step = EmailStepSchema.parse({ type: 'email', id: { field: 'claim_id', pattern: '^(a|a)+$' } });
    const text = `From: eve@example.com\nSubject: ${'a'.repeat(34)}!\nContent-Type: text/plain\n\nbody\n`;
    const err = await unpackEmail('intake', step, { payload: { text }, frames: [], void: false }, 'msg-1').then(() => undefined, (e: unknown) => e);
    expect(err).toBeInstanceOf(StepError);
    expect((err as StepError).message).toContain('no match of /^(a|a)+$/ in the subject');
  });
});
