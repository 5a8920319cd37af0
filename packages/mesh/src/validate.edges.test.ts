import { describe, expect, it } from 'vitest';
import { MeshSchema, type Mesh, type MeshInput } from './schema';
import { validateMesh } from './validate';

type MemberInput = MeshInput['members'][number];
type ChannelInput = MeshInput['channels'][number];
const pass = (id: string, extra: Record<string, unknown> = {}): MemberInput => ({ id, kind: 'workflow', steps: [{ type: 'pass' }], ...extra });
const split = (id: string): MemberInput => ({ id, kind: 'workflow', steps: [{ type: 'split', by: 'word' }] });
const combine = (id: string): MemberInput => ({ id, kind: 'combine' });
const nest = (id: string, mesh: string): MemberInput => ({ id, kind: 'mesh', mesh });
const ch = (from: string, to: string, extra: Partial<ChannelInput> = {}): ChannelInput => ({ from, to, ...extra });
const mesh = (members: MemberInput[], channels: ChannelInput[] = [], name = 'root'): Mesh =>
  MeshSchema.parse({ format: 'trellis.mesh/v1', name, members, channels });
const messages = (m: Mesh, code: string, resolve?: (name: string) => Mesh | undefined) =>
  validateMesh(m, resolve).filter((f) => f.code === code).map((f) => f.message);

describe('validateMesh, edge cases', () => {
  it('judges a repeated id by its first member', () => {
    const m = mesh([pass('h', { head: true }), pass('b', { label: 'First' }), pass('b', { label: 'Second' })]);
    expect(messages(m, 'orphan')).toEqual(['"b" (First) cannot be reached from the head "h", so it never receives a message.']);
  });

  it('tells a copied channel apart from two channels that share an id', () => {
    const m = mesh([pass('h', { head: true }), pass('b')], [ch('h', 'b'), ch('h', 'b'), ch('h', 'b', { id: 'k' }), ch('b', 'h', { id: 'k' })]);
    expect(messages(m, 'duplicate_id')).toEqual([
      'Two channels are named "h->b"; remove the copy, or give each channel its own id.',
      'Two channels are named "k"; give each its own id.',
    ]);
  });

  it('says "any head" for orphans of a mesh with several heads', () => {
    const m = mesh([pass('a', { head: true }), pass('b', { head: true }), pass('lonely')]);
    expect(messages(m, 'orphan')).toEqual(['"lonely" cannot be reached from any head, so it never receives a message.']);
  });

  it('reads the condition of a channel whose sender is missing without failing', () => {
    const m = mesh([pass('h', { head: true })], [ch('ghost', 'h', { when: "x == 'y'" })]);
    expect(validateMesh(m).map((f) => f.code)).toEqual(['member_missing']);
  });

  it('warns about skipped parts only for a real condition between a split and its combine', () => {
    const between = mesh([pass('h', { head: true }), split('s'), combine('j')], [ch('h', 's'), ch('s', 'j', { when: "kind == 'a'" })]);
    expect(messages(between, 'join_may_skip_parts')).toEqual([
      'Channel "s->j" has a condition between a split and the combine "j": parts it filters out are counted there as skipped, so the combine fires with the parts that arrived.',
    ]);
    const blank = mesh([pass('h', { head: true }), split('s'), combine('j')], [ch('h', 's'), ch('s', 'j', { when: '  ' })]);
    expect(validateMesh(blank).map((f) => f.code)).toEqual(['condition_invalid']);
    const noCombine = mesh([pass('h', { head: true }), split('s'), pass('p')], [ch('h', 's'), ch('s', 'p', { when: "kind == 'a'" })]);
    expect(messages(noCombine, 'join_may_skip_parts')).toEqual([]);
  });

  it('warns when a member can send with or without a frame, if any path carries one', () => {
    // p hears from the split (one frame) and straight from the head (none).
    const m = mesh([pass('h', { head: true }), split('s'), pass('p'), combine('j')], [ch('h', 's'), ch('s', 'p'), ch('h', 'p'), ch('p', 'j', { when: "kind == 'a'" })]);
    expect(messages(m, 'join_may_skip_parts')).toHaveLength(1);
  });

  it('lists loops in the order of their first member in the mesh', () => {
    const m = mesh([pass('a', { head: true }), pass('c'), pass('d'), pass('x'), pass('y'), pass('b')], [
      ch('a', 'c'), ch('a', 'b'), ch('b', 'a'), ch('c', 'd'), ch('d', 'c'), ch('a', 'x'), ch('x', 'y'),
    ]);
    expect(validateMesh(m).filter((f) => f.code === 'loop').map((f) => f.channel)).toEqual(['a->b', 'c->d']);
  });

  it('finds a nesting cycle through the second nested member of a child mesh', () => {
    const library: Record<string, Mesh> = {
      leaf: mesh([pass('only', { head: true })], [], 'leaf'),
      child: mesh([pass('z', { head: true }), nest('first', 'leaf'), nest('second', 'root')], [ch('z', 'first'), ch('z', 'second')], 'child'),
    };
    const root = mesh([pass('h', { head: true }), nest('n', 'child')], [ch('h', 'n')]);
    expect(messages(root, 'nesting_cycle', (name) => library[name])).toEqual([
      '"n" runs the mesh "child", and the nesting comes back round (root → child → root); a mesh cannot contain itself.',
    ]);
  });
});
