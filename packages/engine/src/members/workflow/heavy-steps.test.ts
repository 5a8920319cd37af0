import { describe, expect, it } from 'vitest';
import { HttpStepSchema, MemberSchema, type Member } from '@trellis/mesh/schema';
import { StepError } from '../../kernel/errors';
import { laneOf } from '../index';
import { buildUrl } from './steps/http';
import { withField } from './steps/payload';

const member = (raw: unknown): Member => MemberSchema.parse(raw);

describe('heavy steps', () => {
  it('makes a workflow heavy only when it has a code, sql, http or agent step', () => {
    expect(laneOf(member({ id: 'w', kind: 'workflow', steps: [{ type: 'split', by: 'word' }, { type: 'pass' }] })) === 'heavy').toBe(false);
    expect(laneOf(member({ id: 'c', kind: 'combine' })) === 'heavy').toBe(false);
    for (const step of [
      { type: 'code', source: 'return payload' },
      { type: 'sql', connection: 'DB', query: 'select 1' },
      { type: 'http', url: 'https://a.example/x', allowHosts: ['a.example'] },
      { type: 'agent', model: 'demo' },
    ]) {
      expect(laneOf(member({ id: 'w', kind: 'workflow', steps: [{ type: 'pass' }, step] })) === 'heavy').toBe(true);
    }
  });

  it('sets a dotted field without touching the rest of the payload', () => {
    const payload = { a: { keep: 1 }, b: 2 };
    expect(withField(payload, 'a.rows', [1])).toEqual({ a: { keep: 1, rows: [1] }, b: 2 });
    expect(payload).toEqual({ a: { keep: 1 }, b: 2 });
    expect(withField('text', 'rows', [])).toEqual({ value: 'text', rows: [] });
  });

  it('URL-encodes placeholders and refuses a missing field', () => {
    const step = HttpStepSchema.parse({ type: 'http', url: 'https://api.example.com/c/{claim.id}?q={q}', allowHosts: ['api.example.com'] });
    expect(buildUrl('m', step, { claim: { id: '../admin?x=1' }, q: 'a b&c' }).toString()).toBe('https://api.example.com/c/..%2Fadmin%3Fx%3D1?q=a%20b%26c');
    expect(() => buildUrl('m', step, { q: 1 })).toThrow(StepError);
    expect(() => buildUrl('m', step, { q: 1 })).toThrow(/claim.id, which is missing/);
  });
});
