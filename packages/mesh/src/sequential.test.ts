import { describe, expect, it } from 'vitest';
import { MemberSchema, type Channel, type Member } from './schema';
import { sequentialBranches } from './sequential';

const agent = (id: string, extra: Record<string, unknown> = {}) => ({ id, kind: 'agent', model: 'demo', ...extra });
const FIELDS = { type: 'object', properties: { claim_kind: { type: 'string' }, urgency: { type: 'number' } } };
/** X: an agent with a declared answer; Y: an agent whose instructions are given. */
const x = (extra: Record<string, unknown> = {}) => agent('classify', { outputSchema: FIELDS, ...extra });
const y = (instructions: string) => agent('summarise', { instructions });

function warnings(members: Record<string, unknown>[], channels: Channel[]) {
  const map = new Map<string, Member>(members.map((m) => [String(m.id), MemberSchema.parse(m)]));
  return sequentialBranches(map, channels).map((f) => `${f.member ?? ''} ${f.channel ?? ''}: ${f.message}`);
}
const wire = (...pairs: [string, string][]): Channel[] => pairs.map(([from, to]) => ({ from, to }));
const IN = ['intake', 'classify'] as [string, string];
const XY = ['classify', 'summarise'] as [string, string];
const intake = { id: 'intake', kind: 'workflow', steps: [{ type: 'pass' }] };

describe('sequentialBranches', () => {
  it('reports an agent waiting on another whose answer it never uses, naming every sender once', () => {
    const other = { id: 'other', kind: 'workflow', steps: [{ type: 'pass' }] };
    expect(warnings([intake, other, x(), y('Summarise the letter.')], wire(IN, ['other', 'classify'], ['intake', 'classify'], XY))).toEqual([
      'summarise classify->summarise: "summarise" waits for "classify", but its instructions use none of "classify"\'s answer (claim_kind, urgency); ' +
        'if it works on what "classify" received, wire both from "intake" and "other" so they run side by side.',
    ]);
  });

  it('ignores channels from members that do not exist when counting what the second agent receives', () => {
    expect(warnings([intake, x(), y('Summarise.')], wire(IN, XY, ['ghost', 'summarise']))).toHaveLength(1);
  });

  it('says nothing about a channel to a member that does not exist, or to a workflow', () => {
    expect(warnings([intake, x()], wire(IN, ['classify', 'ghost']))).toEqual([]);
    const flow = { id: 'summarise', kind: 'workflow', steps: [{ type: 'pass' }] };
    expect(warnings([intake, x(), flow], wire(IN, XY))).toEqual([]);
  });

  it('says nothing about an agent wired to itself', () => {
    expect(warnings([intake, x({ instructions: 'Classify.' })], wire(IN, ['classify', 'classify']))).toEqual([]);
  });

  it('says nothing when the first agent declares no usable fields', () => {
    for (const properties of [null, [], 'claim_kind', {}]) {
      expect(warnings([intake, x({ outputSchema: { type: 'object', properties } }), y('Summarise.')], wire(IN, XY))).toEqual([]);
    }
  });

  it('says nothing when the second agent has only blank instructions', () => {
    expect(warnings([intake, x(), y('   ')], wire(IN, XY))).toEqual([]);
  });

  it("counts the first agent's label as mentioned, in any case", () => {
    expect(warnings([intake, x({ label: 'Claim Sorter' }), y('Explain what the claim sorter decided.')], wire(IN, XY))).toEqual([]);
    expect(warnings([intake, x({ label: 'Claim Sorter' }), y('Explain the letter.')], wire(IN, XY))).toHaveLength(1);
  });

  it('reads field names as words, whatever punctuation or case joins them', () => {
    expect(warnings([intake, x(), y('Use the Claim - Kind to pick a tone.')], wire(IN, XY))).toEqual([]);
    expect(warnings([intake, x(), y('Say how URGENCY matters.')], wire(IN, XY))).toEqual([]);
    // Part of a word is not the word.
    expect(warnings([intake, x(), y('Mention the urgencyish tone.')], wire(IN, XY))).toHaveLength(1);
  });

  it('never counts a field whose name has no letters or digits as mentioned', () => {
    const odd = x({ outputSchema: { type: 'object', properties: { _: { type: 'string' } } } });
    expect(warnings([intake, odd, y('!!!')], wire(IN, XY))).toHaveLength(1);
  });
});
