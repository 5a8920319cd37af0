import { describe, expect, it } from 'vitest';
import wordSplit from '../../../examples/meshes/word-split.json';
import { hasErrors, type Finding } from './findings';
import { MeshSchema, type Mesh, type MeshInput } from './schema';
import { validateMesh, type ResolveMesh } from './validate';

type MemberInput = MeshInput['members'][number];
type ChannelInput = MeshInput['channels'][number];

const pass = (id: string, extra: Record<string, unknown> = {}): MemberInput => ({
  id,
  kind: 'workflow',
  steps: [{ type: 'pass' }],
  ...extra,
});
const head = (id: string): MemberInput => pass(id, { head: true });
const agent = (id: string, extra: Record<string, unknown> = {}): MemberInput => ({
  id,
  kind: 'agent',
  model: 'demo',
  ...extra,
});
const nest = (id: string, mesh: string): MemberInput => ({ id, kind: 'mesh', mesh });
const combine = (id: string): MemberInput => ({ id, kind: 'combine' });
const ch = (from: string, to: string, when?: string): ChannelInput =>
  when === undefined ? { from, to } : { from, to, when };

function mesh(members: MemberInput[], channels: ChannelInput[] = [], name = 'root'): Mesh {
  return MeshSchema.parse({ format: 'trellis.mesh/v1', name, members, channels });
}

/** `severity:code:member:channel`, so a table row states exactly which findings come out. */
function brief(findings: readonly Finding[]): string[] {
  return findings.map((f) => `${f.severity}:${f.code}:${f.member ?? ''}:${f.channel ?? ''}`);
}

const schemaAgent = (id: string, instructions: string) =>
  agent(id, {
    instructions,
    outputSchema: {
      type: 'object',
      properties: { claim_kind: { type: 'string' }, urgency: { type: 'number' } },
    },
  });
const summarise = agent('summarise', { instructions: 'Summarise the letter in two sentences.' });

interface Row {
  name: string;
  mesh: Mesh;
  resolve?: ResolveMesh;
  findings: string[];
  /** A part of each finding's message, in order. */
  says?: (string | RegExp)[];
}

const library: Record<string, Mesh> = {
  leaf: mesh([head('only')], [], 'leaf'),
  a: mesh([head('x'), nest('to-b', 'b')], [ch('x', 'to-b')], 'a'),
  b: mesh([head('y'), nest('to-a', 'a')], [ch('y', 'to-a')], 'b'),
  c: mesh([head('z'), nest('to-d', 'd')], [ch('z', 'to-d')], 'c'),
  d: mesh([head('w'), nest('to-c', 'c')], [ch('w', 'to-c')], 'd'),
  'has-missing': mesh([head('v'), nest('ghost', 'nowhere')], [ch('v', 'ghost')], 'has-missing'),
};
const resolve: ResolveMesh = (name) => library[name];

const rows: Row[] = [
  {
    name: 'a valid chain',
    mesh: mesh([head('a'), pass('b'), combine('c')], [ch('a', 'b'), ch('b', 'c')]),
    findings: [],
  },
  { name: 'the word-split example', mesh: MeshSchema.parse(wordSplit), findings: [] },
  {
    name: 'a fork and a join with conditions',
    mesh: mesh(
      [head('intake'), agent('classify'), pass('bills'), pass('letters'), combine('assemble')],
      [
        ch('intake', 'classify'),
        ch('classify', 'bills', "kind == 'medical bill'"),
        ch('classify', 'letters', "kind != 'medical bill'"),
        ch('bills', 'assemble'),
        ch('letters', 'assemble'),
      ],
    ),
    findings: [],
  },
  {
    name: 'no head',
    mesh: mesh([pass('a'), pass('b')], [ch('a', 'b')]),
    findings: ['error:head_missing::'],
    says: ['No member is marked as the head'],
  },
  { name: 'an empty mesh', mesh: mesh([]), findings: ['error:head_missing::'] },
  {
    name: 'two heads',
    mesh: mesh([head('a'), head('b'), pass('c')], [ch('a', 'c'), ch('b', 'c')]),
    findings: ['error:head_multiple:a:', 'error:head_multiple:b:'],
    says: ['"a" is one of 2 members marked as the head ("a", "b")', '"b" is one of 2'],
  },
  {
    name: 'a channel to an unknown member',
    mesh: mesh([head('a')], [ch('a', 'ghost')]),
    findings: ['error:member_missing:ghost:a->ghost'],
    says: ['Channel "a->ghost" goes to "ghost", which is not a member of this mesh.'],
  },
  {
    name: 'a channel from an unknown member',
    mesh: mesh([head('a'), pass('b')], [ch('a', 'b'), { id: 'feed', from: 'ghost', to: 'b' }]),
    findings: ['error:member_missing:ghost:feed'],
    says: ['Channel "feed" comes from "ghost"'],
  },
  {
    name: 'a loop of two',
    mesh: mesh([head('a'), pass('b'), pass('c')], [ch('a', 'b'), ch('b', 'c'), ch('c', 'b')]),
    findings: ['error:loop:b:b->c'],
    says: [
      'Channel "b->c" is part of a loop through "b", "c", so a message could go round forever',
    ],
  },
  {
    name: 'a conditional loop back to the head',
    mesh: mesh(
      [head('a'), agent('review')],
      [ch('a', 'review'), ch('review', 'a', 'approved == false')],
    ),
    findings: ['error:loop:a:a->review'],
  },
  {
    name: 'a member sending to itself',
    mesh: mesh([head('a')], [ch('a', 'a')]),
    findings: ['error:loop:a:a->a'],
  },
  {
    name: 'two separate loops',
    mesh: mesh(
      [head('a'), pass('b'), pass('c'), pass('d')],
      [ch('a', 'b'), ch('b', 'a'), ch('a', 'c'), ch('c', 'd'), ch('d', 'c')],
    ),
    findings: ['error:loop:a:a->b', 'error:loop:c:c->d'],
  },
  {
    name: 'a member nothing sends to',
    mesh: mesh([head('a'), pass('b'), pass('lonely', { label: 'Lonely step' })], [ch('a', 'b')]),
    findings: ['error:orphan:lonely:'],
    says: [
      '"lonely" (Lonely step) cannot be reached from the head "a", so it never receives a message.',
    ],
  },
  {
    name: 'a combine with no incoming channel',
    mesh: mesh([head('a'), combine('join')], []),
    findings: ['error:orphan:join:'],
  },
  {
    name: 'members fed only by an orphan',
    mesh: mesh([head('a'), pass('b'), pass('c')], [ch('b', 'c')]),
    findings: ['error:orphan:b:', 'error:orphan:c:'],
  },
  {
    name: 'orphans are judged from every head when there are several',
    mesh: mesh([head('a'), head('b'), pass('c')], [ch('b', 'c')]),
    findings: ['error:head_multiple:a:', 'error:head_multiple:b:'],
  },
  {
    name: 'a member reached only through a missing member',
    mesh: mesh([head('a'), pass('b')], [ch('a', 'ghost'), ch('ghost', 'b')]),
    findings: [
      'error:member_missing:ghost:a->ghost',
      'error:member_missing:ghost:ghost->b',
      'error:orphan:b:',
    ],
  },
  {
    name: 'a condition that does not parse',
    mesh: mesh([head('a'), pass('b')], [ch('a', 'b', 'status ==')]),
    findings: ['error:condition_invalid::a->b'],
    says: [`The condition on channel "a->b" cannot be read: expected a value after '==' at character 10.`],
  },
  {
    name: 'a blank condition',
    mesh: mesh([head('a'), pass('b')], [ch('a', 'b', '  ')]),
    findings: ['error:condition_invalid::a->b'],
    says: ['is empty'],
  },
  {
    name: 'a literal the sending agent never produces',
    mesh: mesh(
      [head('a'), schemaAgent('triage', ''), pass('b')],
      [ch('a', 'triage'), ch('triage', 'b', "urgency > '3'")],
    ),
    findings: ['warning:condition_type_mismatch::triage->b'],
    says: [
      `On channel "triage->b", urgency > '3' is always false: urgency is a number in the output schema, and '3' is a string.`,
    ],
  },
  {
    name: 'no type warning without an output schema',
    mesh: mesh([head('a'), pass('b')], [ch('a', 'b', "urgency > '3'")]),
    findings: [],
  },
  {
    name: 'an ordering with null is always false, schema or not',
    mesh: mesh([head('a'), pass('b')], [ch('a', 'b', 'score >= null')]),
    findings: ['warning:condition_type_mismatch::a->b'],
  },
  {
    name: 'duplicate member ids',
    mesh: mesh([head('a'), pass('b'), pass('b')], [ch('a', 'b')]),
    findings: ['error:duplicate_id:b:'],
    says: ['Two members share the id "b"'],
  },
  {
    name: 'the same channel twice',
    mesh: mesh([head('a'), pass('b')], [ch('a', 'b'), ch('a', 'b')]),
    findings: ['error:duplicate_id::a->b'],
  },
  {
    name: 'a nested mesh that exists',
    mesh: mesh([head('a'), nest('n', 'leaf')], [ch('a', 'n')]),
    resolve,
    findings: [],
  },
  {
    name: 'a nested mesh that does not exist',
    mesh: mesh([head('a'), nest('bill-lines', 'bill-lines')], [ch('a', 'bill-lines')]),
    resolve,
    findings: ['error:nested_mesh_missing:bill-lines:'],
    says: ['"bill-lines" runs the mesh "bill-lines", which does not exist.'],
  },
  {
    name: 'nested meshes are not looked up without a resolver',
    mesh: mesh([head('a'), nest('bill-lines', 'bill-lines')], [ch('a', 'bill-lines')]),
    findings: [],
  },
  {
    name: 'a mesh that nests itself, even without a resolver',
    mesh: mesh([head('a'), nest('again', 'root')], [ch('a', 'again')]),
    findings: ['error:nesting_cycle:again:'],
    says: ['"again" runs the mesh "root", and the nesting comes back round (root → root)'],
  },
  {
    name: 'a nests b nests a',
    mesh: mesh([head('x'), nest('to-b', 'b')], [ch('x', 'to-b')], 'a'),
    resolve,
    findings: ['error:nesting_cycle:to-b:'],
    says: ['(a → b → a)'],
  },
  {
    name: 'the version being edited counts, not the stored one',
    mesh: mesh([head('x'), nest('to-leaf', 'leaf')], [ch('x', 'to-leaf')], 'a'),
    resolve,
    findings: [],
  },
  {
    name: 'a cycle further down the nesting',
    mesh: mesh([head('r'), nest('to-c', 'c')], [ch('r', 'to-c')]),
    resolve,
    findings: ['error:nesting_cycle:to-c:'],
    says: ['(root → c → d → c)'],
  },
  {
    name: 'a missing mesh deeper down is that mesh’s own finding',
    mesh: mesh([head('r'), nest('deep', 'has-missing')], [ch('r', 'deep')]),
    resolve,
    findings: [],
  },
  {
    name: 'an agent waiting for another whose answer it never uses',
    mesh: mesh(
      [head('intake'), schemaAgent('classify', 'Classify the claim.'), summarise],
      [ch('intake', 'classify'), ch('classify', 'summarise')],
    ),
    findings: ['warning:sequential_branches:summarise:classify->summarise'],
    says: [
      '"summarise" waits for "classify", but its instructions use none of "classify"\'s answer (claim_kind, urgency); if it works on what "classify" received, wire both from "intake" so they run side by side.',
    ],
  },
  {
    name: 'no sequential warning when the instructions use a field of the answer',
    mesh: mesh(
      [
        head('intake'),
        schemaAgent('classify', ''),
        agent('route', { instructions: 'Write a reply that fits the Claim kind.' }),
      ],
      [ch('intake', 'classify'), ch('classify', 'route')],
    ),
    findings: [],
  },
  {
    name: 'a condition between a split and its combine warns that parts may be skipped',
    mesh: mesh(
      [
        { id: 'split', kind: 'workflow', head: true, steps: [{ type: 'split', by: 'word' }] },
        pass('keep'),
        combine('join'),
        pass('after'),
      ],
      [ch('split', 'keep', "text != 'b '"), ch('keep', 'join'), ch('join', 'after')],
    ),
    findings: ['warning:join_may_skip_parts:join:split->keep'],
    says: ['Channel "split->keep" has a condition between a split and the combine "join"'],
  },
  {
    name: 'a condition after the combine, or with no split before it, skips nothing',
    mesh: mesh(
      [
        { id: 'split', kind: 'workflow', head: true, steps: [{ type: 'split', by: 'word' }] },
        combine('join'),
        pass('after'),
        pass('gate', { head: false }),
      ],
      [ch('split', 'join'), ch('join', 'after', "text != ''"), ch('after', 'gate', 'x == 1')],
    ),
    findings: [],
  },
  {
    name: 'a condition inside an inner split warns for the inner combine only',
    mesh: mesh(
      [
        { id: 'pages', kind: 'workflow', head: true, steps: [{ type: 'split', by: 'page' }] },
        { id: 'lines', kind: 'workflow', steps: [{ type: 'split', by: 'line' }] },
        combine('line-join'),
        combine('page-join'),
      ],
      [ch('pages', 'lines'), ch('lines', 'line-join', "text != ''"), ch('line-join', 'page-join')],
    ),
    findings: ['warning:join_may_skip_parts:line-join:lines->line-join'],
  },
  {
    name: 'no sequential warning when the instructions name the first agent',
    mesh: mesh(
      [
        head('intake'),
        schemaAgent('classify', ''),
        agent('route', { instructions: 'Explain what classify decided.' }),
      ],
      [ch('intake', 'classify'), ch('classify', 'route')],
    ),
    findings: [],
  },
  {
    name: 'no sequential warning for a pipeline of free text',
    mesh: mesh(
      [head('intake'), agent('translate', { instructions: 'Translate to English.' }), summarise],
      [ch('intake', 'translate'), ch('translate', 'summarise')],
    ),
    findings: [],
  },
  {
    name: 'no sequential warning on a conditional channel',
    mesh: mesh(
      [head('intake'), schemaAgent('classify', ''), summarise],
      [ch('intake', 'classify'), ch('classify', 'summarise', 'urgency > 3')],
    ),
    findings: [],
  },
  {
    name: 'no sequential warning when the second agent also hears from elsewhere',
    mesh: mesh(
      [head('intake'), schemaAgent('classify', ''), summarise],
      [ch('intake', 'classify'), ch('classify', 'summarise'), ch('intake', 'summarise')],
    ),
    findings: [],
  },
  {
    name: 'no sequential warning when the first agent is the head',
    mesh: mesh(
      [{ ...schemaAgent('classify', ''), head: true }, summarise],
      [ch('classify', 'summarise')],
    ),
    findings: [],
  },
  {
    name: 'no sequential warning for a workflow in between',
    mesh: mesh(
      [head('intake'), pass('tidy'), summarise],
      [ch('intake', 'tidy'), ch('tidy', 'summarise')],
    ),
    findings: [],
  },
  {
    name: 'several problems at once come in a stable order',
    mesh: mesh(
      [head('a'), head('b'), pass('b'), pass('c')],
      [ch('a', 'c', 'x =='), ch('c', 'a'), ch('c', 'ghost')],
    ),
    findings: [
      'error:duplicate_id:b:',
      'error:head_multiple:a:',
      'error:head_multiple:b:',
      'error:condition_invalid::a->c',
      'error:member_missing:ghost:c->ghost',
      'error:loop:a:a->c',
    ],
  },
];

describe('validateMesh', () => {
  it.each(rows.map((row) => [row.name, row] as const))('%s', (_name, row) => {
    const findings = validateMesh(row.mesh, row.resolve);
    expect(brief(findings)).toEqual(row.findings);
    (row.says ?? []).forEach((part, i) => {
      expect(findings[i]?.message).toMatch(
        typeof part === 'string' ? new RegExp(escape(part)) : part,
      );
    });
    expect(hasErrors(findings)).toBe(row.findings.some((f) => f.startsWith('error:')));
    for (const finding of findings) expect(finding.message).toMatch(/^[A-Z"(].*[.)]$/);
  });

  it('does not change the mesh it is given', () => {
    const given = mesh([head('a'), pass('b')], [ch('a', 'b', 'x == 1'), ch('b', 'a')]);
    const copy = structuredClone(given);
    validateMesh(given, () => undefined);
    expect(given).toEqual(copy);
  });

  it('handles a long chain and a wide fan-out without trouble', () => {
    const ids = Array.from({ length: 5000 }, (_, i) => `m${i}`);
    const chain = mesh(
      ids.map((id, i) => (i === 0 ? head(id) : pass(id))),
      ids.slice(1).map((id, i) => ch(ids[i] ?? '', id)),
    );
    expect(validateMesh(chain)).toEqual([]);
    const looped = mesh(chain.members, [...chain.channels, ch('m4999', 'm0')]);
    expect(brief(validateMesh(looped))).toEqual(['error:loop:m0:m0->m1']);
    const fan = mesh(
      ids.map((id, i) => (i === 0 ? head(id) : pass(id))),
      ids.slice(1).map((id) => ch('m0', id)),
    );
    expect(validateMesh(fan)).toEqual([]);
  });
});

describe('hasErrors', () => {
  it.each<[Finding[], boolean]>([
    [[], false],
    [[{ code: 'sequential_branches', severity: 'warning', message: 'm' }], false],
    [
      [
        { code: 'sequential_branches', severity: 'warning', message: 'm' },
        { code: 'loop', severity: 'error', message: 'm' },
      ],
      true,
    ],
  ])('%j → %s', (findings, expected) => {
    expect(hasErrors(findings)).toBe(expected);
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
