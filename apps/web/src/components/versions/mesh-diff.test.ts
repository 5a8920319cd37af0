import { describe, expect, it } from 'vitest';
import { MeshSchema, type Mesh } from '@trellis/mesh/schema';
import { diffCanvas, diffMeshes, stableJson } from './mesh-diff';

const wf = (id: string, extra: Record<string, unknown> = {}) => ({ id, kind: 'workflow', steps: [{ type: 'pass' }], ...extra });
const v1: Mesh = MeshSchema.parse({
  format: 'trellis.mesh/v1',
  name: 'd',
  members: [wf('a', { head: true }), wf('b'), wf('c')],
  channels: [{ from: 'a', to: 'b', when: 'x > 1' }, { id: 'to-c', from: 'a', to: 'c' }, { from: 'b', to: 'c' }],
  layout: { a: { x: 0, y: 0 }, b: { x: 0, y: 130 }, c: { x: 260, y: 130 } },
});

/** v1 with c removed (and its channels), d added after b, b's steps and a->b's condition changed, a moved. */
const v2: Mesh = MeshSchema.parse({
  format: 'trellis.mesh/v1',
  name: 'd',
  description: 'now with d',
  members: [wf('a', { head: true }), { ...wf('b'), steps: [{ type: 'split', by: 'word' }] }, wf('d')],
  channels: [{ from: 'a', to: 'b', when: 'x > 2' }, { from: 'b', to: 'd' }],
  layout: { a: { x: 40, y: 0 }, b: { x: 0, y: 130 }, d: { x: 0, y: 260 } },
});

describe('diffMeshes', () => {
  it('names members and channels added, removed and changed, with the fields that changed', () => {
    const d = diffMeshes(v1, v2);
    expect(d.members).toEqual({ added: ['d'], removed: ['c'], changed: [{ key: 'b', fields: ['steps'] }], moved: ['a'] });
    expect(d.channels).toEqual({ added: ['b->d'], removed: ['b->c', 'to-c'], changed: [{ key: 'a->b', fields: ['when'] }] });
    expect(d.mesh).toEqual(['description']);
    expect(d.total).toBe(3 + 4 + 1);
  });

  it('finds nothing between a version and itself, nor in key order', () => {
    const reordered = JSON.parse(stableJson(v1)) as Mesh;
    expect(diffMeshes(v1, reordered).total).toBe(0);
    expect(diffMeshes(v1, v1)).toEqual({
      members: { added: [], removed: [], changed: [], moved: [] },
      channels: { added: [], removed: [], changed: [] },
      mesh: [],
      total: 0,
    });
  });

  it('counts a condition removed as a change, and a member only moved as a move, not a change', () => {
    const moved: Mesh = { ...v1, layout: { ...v1.layout, c: { x: 500, y: 500 } } };
    const noCondition: Mesh = { ...moved, channels: v1.channels.map((c) => (c.when ? { from: c.from, to: c.to } : c)) };
    const d = diffMeshes(v1, noCondition);
    expect(d.members.changed).toEqual([]);
    expect(d.members.moved).toEqual(['c']);
    expect(d.channels.changed).toEqual([{ key: 'a->b', fields: ['when'] }]);
    expect(d.total).toBe(1);
  });

  it('reads the opposite direction as the mirror image', () => {
    const d = diffMeshes(v2, v1);
    expect(d.members.added).toEqual(['c']);
    expect(d.members.removed).toEqual(['d']);
    expect(d.channels.added).toEqual(['b->c', 'to-c']);
    expect(d.channels.removed).toEqual(['b->d']);
  });
});

describe('diffCanvas', () => {
  it('draws the newer version plus what it removed, at the old positions, with a state for each', () => {
    const { mesh, memberState, channelState } = diffCanvas(v1, v2);
    expect(mesh.members.map((m) => m.id)).toEqual(['a', 'b', 'd', 'c']);
    expect(memberState).toEqual({ a: 'same', b: 'changed', d: 'added', c: 'removed' });
    expect(channelState).toEqual({ 'a->b': 'changed', 'b->d': 'added', 'to-c': 'removed', 'b->c': 'removed' });
    expect(mesh.layout?.c).toEqual({ x: 260, y: 130 });
    expect(mesh.layout?.a).toEqual({ x: 40, y: 0 });
  });

  it('never draws two heads when the head was replaced', () => {
    const newHead: Mesh = { ...v1, members: [wf('z', { head: true }) as Mesh['members'][number], ...v1.members.filter((m) => m.id !== 'a')], channels: [] };
    const { mesh, memberState } = diffCanvas(v1, newHead);
    expect(memberState.a).toBe('removed');
    expect(mesh.members.filter((m) => m.head).map((m) => m.id)).toEqual(['z']);
  });
});
