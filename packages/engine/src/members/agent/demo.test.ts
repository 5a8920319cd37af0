import { describe, expect, it } from 'vitest';
import { AgentMemberSchema, type AgentMember } from '@trellis/mesh/schema';
import { StepError } from '../../kernel/errors';
import { demoAnswer } from './demo';
import { runAgent } from './run-agent';

function demo(outputSchema?: Record<string, unknown>): AgentMember {
  return AgentMemberSchema.parse({ id: 'classify', kind: 'agent', model: 'demo', ...(outputSchema ? { outputSchema } : {}) });
}

const claim = { claim_id: 'C-7', letter: { subject: 'Please pay this Medical Bill', urgentFlag: 'yes' }, pages: 3 };

describe('the demo model', () => {
  it('needs no provider or key, costs nothing and says it is the demo', async () => {
    const result = await runAgent(demo(), { text: 'hello' }, { env: {} });
    expect(result).toEqual({ output: { text: '[demo] hello' }, usage: { promptTokens: 0, completionTokens: 0, costUsd: 0 }, demo: true });
  });

  it.each([
    ['copies a payload field of the same name that fits', { claim_id: { type: 'string' } }, { claim_id: 'C-7' }],
    ['ignores a same-named field of the wrong type', { pages: { type: 'string' } }, { pages: 'C-7 Please pay this Medical Bill yes' }],
    ['finds nested fields, ignoring case', { Subject: { type: 'string' } }, { Subject: 'Please pay this Medical Bill' }],
    ['picks the enum option the text mentions', { kind: { enum: ['letter', 'medical bill'] } }, { kind: 'medical bill' }],
    ['else the first enum option', { kind: { enum: ['invoice', 'receipt'] } }, { kind: 'invoice' }],
    ['matches whole words only', { kind: { enum: ['receipt', 'bil'] } }, { kind: 'receipt' }],
    ['numbers are 0.9, clamped', { score: { type: 'number' }, low: { type: 'number', maximum: 0.5 } }, { score: 0.9, low: 0.5 }],
    ['integers count the words', { words: { type: 'integer' } }, { words: 7 }],
    ['booleans say whether the name is mentioned', { medicalBill: { type: 'boolean' }, overdue: { type: 'boolean' } }, { medicalBill: true, overdue: false }],
    ['strings default to the text, cut to maxLength', { summary: { type: 'string', maxLength: 6 } }, { summary: 'C-7 Pl' }],
    ['arrays hold one filled item', { tags: { type: 'array', items: { enum: ['x', 'bill'] } } }, { tags: ['bill'] }],
    ['const wins', { version: { const: 2 } }, { version: 2 }],
  ])('%s', (_name, properties, expected) => {
    expect(demoAnswer(demo({ type: 'object', properties }), claim)).toEqual(expected);
  });

  it('is deterministic and satisfies a whole classification schema', () => {
    const member = demo({
      type: 'object',
      properties: {
        claim_id: { type: 'string' },
        kind: { enum: ['letter', 'medical bill', 'invoice'] },
        confidence: { type: 'number', minimum: 0, maximum: 1 },
        detail: { type: 'object', properties: { pages: { type: 'integer' } }, required: ['pages'] },
      },
      required: ['claim_id', 'kind', 'confidence', 'detail'],
      additionalProperties: false,
    });
    const answer = demoAnswer(member, claim);
    expect(answer).toEqual({ claim_id: 'C-7', kind: 'medical bill', confidence: 0.9, detail: { pages: 3 } });
    expect(demoAnswer(member, claim)).toEqual(answer);
  });

  it('fails with outcome_unreadable when its rules cannot satisfy the schema', () => {
    const member = demo({ type: 'object', properties: { code: { type: 'string', pattern: '^[0-9]{4}$' } } });
    let err: unknown;
    try {
      demoAnswer(member, claim);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(StepError);
    expect((err as StepError).cause).toBe('outcome_unreadable');
    expect((err as StepError).retryable).toBe(false);
  });
});
