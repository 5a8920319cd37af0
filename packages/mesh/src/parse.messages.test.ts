import { describe, expect, it } from 'vitest';
import { parseMeshFile } from './parse';

const FORMAT = 'trellis.mesh/v1';
const HEAD = { id: 'h', kind: 'workflow', head: true, steps: [{ type: 'pass' }] };
const mesh = (members: unknown, channels: unknown = []) => ({ format: FORMAT, name: 'm', members, channels });
const KINDS = 'expected one of agent, workflow, mesh, service, combine';
const STEPS = 'expected one of "split", "map", "pass", "code", "sql", "http", "email", "agent"';

/** The findings of a refused file; fails the test when the file is accepted. */
function refused(input: unknown) {
  const read = parseMeshFile(input);
  if (read.ok) throw new Error('the file was accepted');
  return read.findings;
}

describe('parseMeshFile names what is wrong, as a plain sentence', () => {
  it.each([
    ['text that is a number', '5', 'A mesh file is a JSON object with format, name, members and channels; this is a number.'],
    ['nothing at all', undefined, 'A mesh file is a JSON object with format, name, members and channels; this is nothing.'],
    ['an empty array', [], 'A mesh file is a JSON object with format, name, members and channels; this is an empty array.'],
    ['channels that are not a list', mesh([HEAD], 'nope'), 'The mesh: channels should be an array, not a string.'],
    ['no members', { format: FORMAT, name: 'm', channels: [] }, 'The mesh: members is missing; expected an array.'],
    ['a member that is null', mesh([null]), 'The member at position 1 should be an object, not null.'],
    ['a member whose id is a number', mesh([{ ...HEAD, id: 5 }]), 'The member at position 1: id should be a string, not a number.'],
    ['a member whose id is empty', mesh([{ ...HEAD, id: '' }]), 'The member at position 1: id is "", which is not valid; expected 1-63 letters, digits, "-" or "_".'],
    ['a channel that is a number', mesh([HEAD], [5]), 'The channel at position 1 should be an object, not a number.'],
    ['a channel without from', mesh([HEAD], [{ to: 'h' }]), 'The channel at position 1: from is missing; expected a string.'],
  ])('%s, naming no member or channel it cannot name', (_name, input, message) => {
    expect(refused(input)).toStrictEqual([{ code: 'schema_invalid', severity: 'error', message }]);
  });

  it.each([
    ['a format given as a list', ['trellis.mesh/v2'], 'The format an array is not one Trellis reads; expected "trellis.mesh/v1".'],
    ['the current version with a leading zero', 'trellis.mesh/v01', 'The format "trellis.mesh/v01" is not one Trellis reads; expected "trellis.mesh/v1".'],
    ['a format that is a number', 5, 'The format 5 is not one Trellis reads; expected "trellis.mesh/v1".'],
    ['a newer version', 'trellis.mesh/v2', 'The file is in format "trellis.mesh/v2", which is newer than this Trellis reads (trellis.mesh/v1). Update Trellis to import it.'],
  ])('%s', (_name, format, message) => {
    expect(refused({ ...mesh([HEAD]), format })).toStrictEqual([{ code: 'format_unsupported', severity: 'error', message }]);
  });

  it.each([
    ['a kind that is a number', { id: 'a', kind: 5 }, `Member "a" has kind 5, which Trellis does not know; ${KINDS}.`],
    ['a kind that is true', { id: 'a', kind: true }, `Member "a" has kind true, which Trellis does not know; ${KINDS}.`],
    ['a kind that is null', { id: 'a', kind: null }, `Member "a" has kind null, which Trellis does not know; ${KINDS}.`],
    ['no kind', { id: 'a' }, `Member "a" has no kind; ${KINDS}.`],
    ['a kind of 60 characters, quoted whole', { id: 'a', kind: 'k'.repeat(60) }, `Member "a" has kind "${'k'.repeat(60)}", which Trellis does not know; ${KINDS}.`],
    ['a kind of 61 characters, cut to 57', { id: 'a', kind: 'k'.repeat(61) }, `Member "a" has kind "${'k'.repeat(57)}...", which Trellis does not know; ${KINDS}.`],
    ['an unknown step type', { ...HEAD, id: 'a', steps: [{ type: 'teleport' }] }, `Member "a": steps[0].type is "teleport"; ${STEPS}.`],
    ['a step without a type', { ...HEAD, id: 'a', steps: [{}] }, `Member "a": steps[0].type is missing; ${STEPS}.`],
    ['a split without by', { ...HEAD, id: 'a', steps: [{ type: 'split' }] }, 'Member "a": steps[0].by is missing; expected one of "page", "line", "word".'],
    ['a split by an unknown unit', { ...HEAD, id: 'a', steps: [{ type: 'split', by: 'char' }] }, 'Member "a": steps[0].by is "char"; expected one of "page", "line", "word".'],
    ['a nested mesh output of an unknown mode', { id: 'a', kind: 'mesh', mesh: 'x', output: 'both' }, 'Member "a": output is "both"; expected one of "replace", "merge".'],
    ['a provider URL that is not one', { id: 'a', kind: 'agent', model: 'x', provider: { baseUrl: 'nope', apiKeySecret: 'K' } }, 'Member "a": provider.baseUrl is "nope", which is not valid; expected a URL.'],
    ['an empty model', { id: 'a', kind: 'agent', model: '' }, 'Member "a": model is ""; expected some text.'],
    ['an empty tool name', { id: 'a', kind: 'agent', model: 'demo', tools: [''] }, 'Member "a": tools[0] is ""; expected some text.'],
    ['a timeout below the least', { ...HEAD, id: 'a', steps: [{ type: 'code', source: 'x', timeoutMs: 5 }] }, 'Member "a": steps[0].timeoutMs is 5; expected at least 10.'],
    ['a timeout above the most', { ...HEAD, id: 'a', steps: [{ type: 'code', source: 'x', timeoutMs: 7_000_000 }] }, 'Member "a": steps[0].timeoutMs is 7000000; expected at most 600000.'],
    ['an email id with neither header nor pattern', { ...HEAD, id: 'a', steps: [{ type: 'email', id: { field: 'claim' } }] }, 'Member "a": steps[0].id: give a header, a pattern or both.'],
    ['an email id pattern that is not a regular expression', { ...HEAD, id: 'a', steps: [{ type: 'email', id: { pattern: 'CL-(' } }] }, 'Member "a": steps[0].id.pattern: expected a regular expression RE2 accepts (no backreferences or lookaround): error parsing regexp: missing closing ): `CL-(`.'],
    ['an empty host list, in the schema\'s own words', { ...HEAD, id: 'a', steps: [{ type: 'http', url: 'https://h/', allowHosts: [] }] }, 'Member "a": steps[0].allowHosts is an empty array; list at least one host the step may call.'],
  ])('%s, naming the member', (_name, member, message) => {
    expect(refused(mesh([HEAD, member]))).toStrictEqual([{ code: 'schema_invalid', severity: 'error', member: 'a', message }]);
  });

  it('accepts an email id by header, by pattern, or both', () => {
    for (const id of [{ header: 'X-Claim' }, { pattern: 'CL-(\\d+)' }, { header: 'X-Claim', pattern: 'CL-\\d+' }]) {
      expect(parseMeshFile(mesh([{ ...HEAD, steps: [{ type: 'email', id }] }])).ok).toBe(true);
    }
  });

  it('names a channel by its id, quoting a long one cut short', () => {
    const id = 'c'.repeat(131);
    expect(refused(mesh([HEAD], [{ id, from: 'h', to: 'h' }]))).toStrictEqual([
      { code: 'schema_invalid', severity: 'error', channel: id, message: `Channel "${id}": id is "${'c'.repeat(57)}..."; expected at most 130 characters.` },
    ]);
  });

  it('strips a byte order mark at the start of the text only', () => {
    const text = JSON.stringify(mesh([{ ...HEAD, label: '\uFEFFx' }]));
    const read = parseMeshFile(text);
    const again = parseMeshFile(`\uFEFF${text}`);
    expect(read.ok && read.mesh.members[0]?.label).toBe('\uFEFFx');
    expect(again.ok && again.mesh.members[0]?.label).toBe('\uFEFFx');
  });
});
