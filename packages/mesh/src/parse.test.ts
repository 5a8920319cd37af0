import { describe, expect, it } from 'vitest';
import wordSplit from '../../../examples/meshes/word-split.json';
import type { Finding } from './findings';
import { parseMeshFile } from './parse';

const F = 'trellis.mesh/v1';

/** A small valid mesh file, with `patch` merged over it. */
function file(patch: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    format: F,
    name: 'claims-intake',
    members: [
      { id: 'intake', kind: 'workflow', head: true, steps: [{ type: 'pass' }] },
      { id: 'classify', kind: 'agent', model: 'demo' },
    ],
    channels: [{ from: 'intake', to: 'classify' }],
    ...patch,
  };
}

function refused(input: unknown): Finding[] {
  const result = parseMeshFile(input);
  if (result.ok) throw new Error('expected the file to be refused');
  return result.findings;
}

describe('parseMeshFile accepts', () => {
  it('a valid file as text, and applies the defaults', () => {
    const result = parseMeshFile(JSON.stringify(file()));
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.mesh.members[1]).toEqual({
      id: 'classify',
      kind: 'agent',
      model: 'demo',
      instructions: '',
    });
  });

  it('an already parsed value, and text with a byte order mark', () => {
    expect(parseMeshFile(file()).ok).toBe(true);
    expect(parseMeshFile(`\uFEFF${JSON.stringify(file())}`).ok).toBe(true);
  });

  it('the word-split example', () => {
    const result = parseMeshFile(wordSplit);
    expect(result.ok).toBe(true);
  });

  it('every member kind with its own fields', () => {
    const members = [
      {
        id: 'intake',
        kind: 'workflow',
        head: true,
        steps: [
          { type: 'split', by: 'line' },
          { type: 'map', fields: { t: 'text' } },
        ],
      },
      {
        id: 'classify',
        kind: 'agent',
        model: 'm',
        outputSchema: { type: 'object' },
        tools: ['search'],
        temperature: 0,
      },
      { id: 'bill-lines', kind: 'mesh', mesh: 'bill-lines' },
      { id: 'records', kind: 'service', service: 'records-check', claimTimeoutSeconds: 60 },
      { id: 'assemble', kind: 'combine', key: 'claim_id', merge: { type: 'concat' } },
    ];
    const result = parseMeshFile(
      file({ members, channels: [], layout: { intake: { x: 1, y: 2 } } }),
    );
    expect(result.ok).toBe(true);
  });
});

describe('parseMeshFile refuses the whole file', () => {
  it.each<[string, unknown, Partial<Finding>, RegExp]>([
    ['text that is not JSON', '{ "format": ', { code: 'not_json' }, /not valid JSON/],
    ['an empty text', '', { code: 'not_json' }, /not valid JSON/],
    ['a JSON array', '[1, 2]', { code: 'schema_invalid' }, /JSON object .* this is an array/],
    ['JSON null', 'null', { code: 'schema_invalid' }, /this is null/],
    ['no format', file({ format: undefined }), { code: 'format_unsupported' }, /has no "format"/],
    [
      'a newer format',
      file({ format: 'trellis.mesh/v2' }),
      { code: 'format_unsupported' },
      /"trellis\.mesh\/v2", which is newer than this Trellis reads/,
    ],
    [
      'a much newer format',
      file({ format: 'trellis.mesh/v12' }),
      { code: 'format_unsupported' },
      /newer/,
    ],
    [
      'an older format',
      file({ format: 'trellis.mesh/v0' }),
      { code: 'format_unsupported' },
      /not one Trellis reads/,
    ],
    [
      'an unknown format',
      file({ format: 'n8n.workflow' }),
      { code: 'format_unsupported' },
      /"n8n\.workflow" is not one/,
    ],
    [
      'a format that is not text',
      file({ format: 1 }),
      { code: 'format_unsupported' },
      /format 1 is not one/,
    ],
    [
      'an unknown member kind',
      file({ members: [{ id: 'intake', kind: 'robot', head: true }] }),
      { code: 'schema_invalid', member: 'intake' },
      /Member "intake" has kind "robot", which Trellis does not know; expected one of agent, workflow, mesh, service, combine/,
    ],
    [
      'a member without a kind',
      file({ members: [{ id: 'intake' }] }),
      { code: 'schema_invalid', member: 'intake' },
      /Member "intake" has no kind/,
    ],
    [
      'a missing field',
      file({ members: [{ id: 'classify', kind: 'agent' }] }),
      { code: 'schema_invalid', member: 'classify' },
      /Member "classify": model is missing; expected a string/,
    ],
    [
      'a field of the wrong type',
      file({ members: [{ id: 'records', kind: 'service', service: 3 }] }),
      { code: 'schema_invalid', member: 'records' },
      /Member "records": service should be a string, not a number/,
    ],
    [
      'a nested field out of its options',
      file({
        members: [{ id: 'pages', kind: 'workflow', steps: [{ type: 'split', by: 'char' }] }],
      }),
      { code: 'schema_invalid', member: 'pages' },
      /steps\[0\]\.by is "char"; expected one of "page", "line", "word"/,
    ],
    [
      'a number out of range',
      file({ members: [{ id: 'classify', kind: 'agent', model: 'm', temperature: 9 }] }),
      { code: 'schema_invalid', member: 'classify' },
      /temperature is 9; expected at most 2/,
    ],
    [
      'a workflow without steps',
      file({ members: [{ id: 'w', kind: 'workflow', steps: [] }] }),
      { code: 'schema_invalid', member: 'w' },
      /steps is an empty array; a workflow needs at least one step/,
    ],
    [
      'a bad id',
      file({ members: [{ id: 'has space', kind: 'mesh', mesh: 'm' }] }),
      { code: 'schema_invalid', member: 'has space' },
      /id is "has space", which is not valid; expected 1-63 letters/,
    ],
    [
      'a member without an id',
      file({
        members: [
          { id: 'a', kind: 'mesh', mesh: 'm' },
          { kind: 'mesh', mesh: 'm' },
        ],
      }),
      { code: 'schema_invalid', member: undefined },
      /The member at position 2: id is missing/,
    ],
    [
      'a member that is not an object',
      file({ members: ['intake'] }),
      { code: 'schema_invalid' },
      /The member at position 1 should be an object, not a string/,
    ],
    [
      'a channel condition that is not text',
      file({ channels: [{ from: 'intake', to: 'classify', when: 3 }] }),
      { code: 'schema_invalid', channel: 'intake->classify' },
      /Channel "intake->classify": when should be a string, not a number/,
    ],
    [
      'a channel without a target',
      file({ channels: [{ id: 'c1', from: 'intake' }] }),
      { code: 'schema_invalid', channel: 'c1' },
      /Channel "c1": to is missing/,
    ],
    [
      'an unnamed channel without a target',
      file({ channels: [{ from: 'intake' }] }),
      { code: 'schema_invalid', channel: undefined },
      /The channel at position 1: to is missing/,
    ],
    [
      'a bad mesh name',
      file({ name: '' }),
      { code: 'schema_invalid' },
      /The mesh: name is "", which is not valid/,
    ],
    [
      'members that are not a list',
      file({ members: {} }),
      { code: 'schema_invalid' },
      /members should be an array, not an object/,
    ],
    [
      'a bad layout',
      file({ layout: { intake: { x: '1', y: 0 } } }),
      { code: 'schema_invalid' },
      /layout\.intake\.x should be a number, not a string/,
    ],
    [
      'duplicate member ids',
      file({
        members: [
          { id: 'a', kind: 'mesh', mesh: 'm' },
          { id: 'a', kind: 'mesh', mesh: 'n' },
        ],
        channels: [],
      }),
      { code: 'duplicate_id', member: 'a' },
      /Two members share the id "a"/,
    ],
    [
      'duplicate channel ids',
      file({
        channels: [
          { id: 'k', from: 'intake', to: 'classify' },
          { id: 'k', from: 'classify', to: 'intake' },
        ],
      }),
      { code: 'duplicate_id', channel: 'k' },
      /Two channels are named "k"; give each its own id/,
    ],
    [
      'the same channel twice',
      file({
        channels: [
          { from: 'intake', to: 'classify' },
          { from: 'intake', to: 'classify' },
        ],
      }),
      { code: 'duplicate_id', channel: 'intake->classify' },
      /remove the copy/,
    ],
  ])('%s', (_name, input, expected, message) => {
    const findings = refused(input);
    expect(findings).toHaveLength(1);
    const [finding] = findings;
    const named = Object.fromEntries(
      Object.entries(expected).filter(([, value]) => value !== undefined),
    );
    expect(finding).toMatchObject({ severity: 'error', ...named });
    if ('member' in expected && expected.member === undefined)
      expect(finding?.member).toBeUndefined();
    if ('channel' in expected && expected.channel === undefined)
      expect(finding?.channel).toBeUndefined();
    expect(finding?.message).toMatch(message);
  });

  it('reports every problem at once, in file order', () => {
    const findings = refused(
      file({
        members: [
          { id: 'a', kind: 'robot' },
          { id: 'b', kind: 'agent' },
          { id: 'b', kind: 'mesh', mesh: 'x' },
        ],
        channels: [{ from: 'a', to: 'b', when: false }],
      }),
    );
    expect(findings.map((f) => [f.code, f.member ?? f.channel])).toEqual([
      ['schema_invalid', 'a'],
      ['schema_invalid', 'b'],
      ['schema_invalid', 'a->b'],
      ['duplicate_id', 'b'],
    ]);
  });

  it('does not check the graph: that is the validator', () => {
    expect(parseMeshFile(file({ members: [], channels: [{ from: 'x', to: 'y' }] })).ok).toBe(true);
  });
});
