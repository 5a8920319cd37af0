import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { CombineMember, Member } from '@trellis/mesh/schema';
import { StepError } from '../../kernel/errors';
import { mergeParts } from '../combine/merge';
import { executeMember } from '../index';
import type { Incoming } from '../types';

const words: Member = { id: 'words', kind: 'workflow', steps: [{ type: 'split', by: 'word', field: 'text' }] };
const concat: CombineMember = { id: 'j', kind: 'combine', merge: { type: 'concat', field: 'text' } };
const msg = (payload: unknown, extra: Partial<Incoming> = {}): Incoming => ({ id: 'm1', payload, frames: [], void: false, ...extra });

describe('member execution', () => {
  it('a split pushes a frame per part, keyed by the message id', () => {
    const out = executeMember(words, msg({ text: 'a  b\n' }, { frames: [{ split: 'outer', index: 2, count: 5 }] }));
    expect(out.map((i) => i.payload)).toEqual([{ text: 'a  ' }, { text: 'b\n' }]);
    expect(out.map((i) => i.frames.at(-1))).toEqual([
      { split: 'm1', index: 0, count: 2 },
      { split: 'm1', index: 1, count: 2 },
    ]);
    expect(out.every((i) => i.frames[0]?.split === 'outer')).toBe(true);
  });

  it('a split of nothing sends one void with a count-0 frame; a void passes a split as a deeper void', () => {
    const [v] = executeMember(words, msg({ text: '' }));
    expect(v).toEqual({ payload: {}, frames: [{ split: 'm1', index: 0, count: 0 }], void: true });
    const again = executeMember(words, { id: 'm2', payload: {}, frames: v?.frames ?? [], void: true });
    expect(again).toEqual([{ payload: {}, frames: [...(v?.frames ?? []), { split: 'm2', index: 0, count: 0 }], void: true }]);
  });

  it('map copies fields; the demo agent answers; other models fail without retry', () => {
    const map: Member = { id: 'm', kind: 'workflow', steps: [{ type: 'map', fields: { kind: 'claim.kind', missing: 'nope' } }] };
    expect(executeMember(map, msg({ claim: { kind: 'bill' } }))[0]?.payload).toEqual({ kind: 'bill', missing: null });
    const demo: Member = { id: 'ask', kind: 'agent', model: 'demo', instructions: '' };
    expect(executeMember(demo, msg({ q: 1 }))[0]?.payload).toEqual({ q: 1, agent: 'ask' });
    const real: Member = { id: 'ask', kind: 'agent', model: 'gpt-x', instructions: '' };
    let err: unknown;
    try {
      executeMember(real, msg({}));
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(StepError);
    expect(err).toMatchObject({ cause: 'agent_or_model_missing', retryable: false, member: 'ask' });
  });

  it('split then concat in seq order gives the text back, for any text', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('a', 'é', ' ', '\t', '\r', '\n', '\f', '🎉', 'x') }), (text) => {
        const parts = executeMember(words, msg({ text }));
        const payloads = parts.filter((p) => !p.void).map((p) => p.payload);
        expect(mergeParts(concat, payloads)).toEqual({ text });
      }),
    );
  });

  it('collect gathers payloads in order', () => {
    const collect: CombineMember = { id: 'c', kind: 'combine', merge: { type: 'collect', into: 'items' } };
    expect(mergeParts(collect, [{ a: 1 }, { a: 2 }])).toEqual({ items: [{ a: 1 }, { a: 2 }] });
    expect(mergeParts(collect, [])).toEqual({ items: [] });
  });
});
