import { describe, expect, it } from 'vitest';
import { AgentMemberSchema } from '@trellis/mesh/schema';
import type { StepError } from '../../kernel/errors';
import { outputValidator, readAnswer } from './output';

const member = AgentMemberSchema.parse({
  id: 'a',
  kind: 'agent',
  model: 'm',
  outputSchema: {
    type: 'object',
    properties: {
      name: { type: 'string' },
      count: { type: 'integer' },
      ratio: { type: 'number' },
      ok: { type: 'boolean' },
      tags: { type: 'array', items: { type: 'string' } },
      level: { enum: ['low', 'high'] },
    },
    required: ['name', 'level'],
  },
});

function causeOf(fn: () => unknown): string | undefined {
  try {
    fn();
    return undefined;
  } catch (err) {
    return (err as StepError).cause;
  }
}

describe('output schema (JSON Schema subset through z.fromJSONSchema)', () => {
  it.each([
    ['the minimal answer', { name: 'x', level: 'low' }, true],
    ['every field', { name: 'x', count: 2, ratio: 0.5, ok: true, tags: ['a'], level: 'high' }, true],
    ['extra fields (allowed unless additionalProperties is false)', { name: 'x', level: 'low', more: 1 }, true],
    ['a missing required field', { name: 'x' }, false],
    ['a value outside the enum', { name: 'x', level: 'mid' }, false],
    ['a fraction for an integer', { name: 'x', level: 'low', count: 1.5 }, false],
    ['a number as text', { name: 'x', level: 'low', ratio: '0.5' }, false],
    ['a wrong array item', { name: 'x', level: 'low', tags: [1] }, false],
    ['not an object', ['x'], false],
  ])('%s', (_name, value, valid) => {
    expect(outputValidator(member)?.safeParse(value).success).toBe(valid);
  });

  it('reads JSON text, returns { text } without a schema, and calls anything else unreadable', () => {
    expect(readAnswer(member, '{"name":"x","level":"low"}')).toEqual({ name: 'x', level: 'low' });
    expect(readAnswer({ ...member, outputSchema: undefined }, 'plain words')).toEqual({ text: 'plain words' });
    expect(causeOf(() => readAnswer(member, ''))).toBe('outcome_unreadable');
    expect(causeOf(() => readAnswer(member, 'name: x'))).toBe('outcome_unreadable');
    expect(causeOf(() => readAnswer(member, '{"name":"x"}'))).toBe('outcome_unreadable');
  });

  it('refuses a schema zod cannot convert with step_code_failed', () => {
    const bad = { ...member, outputSchema: { if: { type: 'string' }, then: { minLength: 1 } } };
    expect(causeOf(() => outputValidator(bad))).toBe('step_code_failed');
  });
});
