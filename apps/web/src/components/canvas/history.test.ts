import { describe, expect, it } from 'vitest';
import { MeshSchema, type Mesh } from '@trellis/mesh/schema';
import { editKey, MERGE_WINDOW_MS, record, redo, startHistory, undo } from './history';

const wf = (id: string, extra: Record<string, unknown> = {}) => ({ id, kind: 'workflow', steps: [{ type: 'pass' }], ...extra });
const base: Mesh = MeshSchema.parse({
  format: 'trellis.mesh/v1',
  name: 'h',
  members: [wf('a', { head: true }), wf('b'), wf('c')],
  channels: [{ from: 'a', to: 'b', when: 'x > 1' }, { id: 'to-c', from: 'a', to: 'c', when: "kind == 'y'" }],
  layout: { a: { x: 0, y: 0 }, b: { x: 0, y: 130 }, c: { x: 260, y: 130 } },
});
const moved = (m: Mesh, id: string, x: number, y: number): Mesh => ({ ...m, layout: { ...m.layout, [id]: { x, y } } });
const withoutA: Mesh = { ...base, members: base.members.filter((m) => m.id !== 'a'), channels: [], layout: { b: { x: 0, y: 130 }, c: { x: 260, y: 130 } } };
const renamedB = (label: string): Mesh => ({ ...base, members: base.members.map((m) => (m.id === 'b' ? { ...m, label } : m)) });

describe('history', () => {
  it('undoes a delete back to the same ids and conditions, and redoes it', () => {
    let h = record(startHistory(base), withoutA, 1);
    h = undo(h);
    expect(h.present).toEqual(base);
    expect(h.present.channels).toEqual([{ from: 'a', to: 'b', when: 'x > 1' }, { id: 'to-c', from: 'a', to: 'c', when: "kind == 'y'" }]);
    h = redo(h);
    expect(h.present).toEqual(withoutA);
    expect(undo(undo(h)).present).toEqual(base);
  });

  it('records nothing when the file did not change, and clears redo on a new edit', () => {
    const h = startHistory(base);
    expect(record(h, structuredClone(base), 5)).toBe(h);
    const one = undo(record(h, withoutA, 1));
    expect(one.future).toHaveLength(1);
    const branched = record(one, moved(base, 'b', 9, 9), 2);
    expect(branched.future).toHaveLength(0);
    expect(redo(branched)).toBe(branched);
    expect(undo(startHistory(base)).present).toBe(base);
  });

  it('keeps each move its own step, and a multi-member move is one step', () => {
    const both = { ...base, layout: { ...base.layout, a: { x: 40, y: 40 }, b: { x: 40, y: 170 } } };
    let h = record(startHistory(base), both, 1);
    h = record(h, moved(both, 'c', 1, 1), 2);
    expect(h.past).toHaveLength(2);
    expect(undo(undo(h)).present).toEqual(base);
    expect(editKey(base, both)).toBeNull();
  });

  it('merges typing in one field into one step, but not across fields or after the window', () => {
    let h = record(startHistory(base), renamedB('P'), 1000);
    h = record(h, renamedB('Pa'), 1300);
    h = record(h, renamedB('Pay'), 1600);
    expect(h.past).toHaveLength(1);
    expect(undo(h).present).toEqual(base);
    const later = record(h, renamedB('Pays'), 1600 + MERGE_WINDOW_MS);
    expect(later.past).toHaveLength(2);
    const condition = { ...renamedB('Pay'), channels: [{ ...base.channels[0], when: 'x > 2' }, base.channels[1]] } as Mesh;
    expect(record(h, condition, 1700).past).toHaveLength(2);
    expect(editKey(renamedB('Pay'), condition)).toBe('channel:0');
    expect(editKey(base, renamedB('x'))).toBe('member:b');
  });

  it('drops the oldest steps beyond the limit', () => {
    let h = startHistory(base);
    for (let i = 1; i <= 5; i++) h = record(h, moved(base, 'a', i, i), i * 10_000, 3);
    expect(h.past).toHaveLength(3);
    expect(h.past[0]).toEqual(moved(base, 'a', 2, 2));
  });
});
