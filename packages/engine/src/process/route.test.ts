import { describe, expect, it } from 'vitest';
import { MeshSchema } from '@trellis/mesh/schema';
import { compilePlan } from '../plan/plan';
import type { Frame, Item } from '../plan/frames';
import { leafOutput, routeItems } from './route';
import type { Claimed } from './types';

const pass = (id: string, extra: Record<string, unknown> = {}) => ({ id, kind: 'workflow', steps: [{ type: 'pass' }], ...extra });

/**
 * h → s (a split, labelled "Sorter") → p when kind == 'a' → j (a combine);
 * s → q when kind == 'b' → j; s → r (no condition, a leaf that joins nothing).
 */
const plan = compilePlan(
  MeshSchema.parse({
    format: 'trellis.mesh/v1',
    name: 'routes',
    members: [
      pass('h', { head: true }),
      { id: 's', kind: 'workflow', label: 'Sorter', steps: [{ type: 'split', by: 'word' }] },
      pass('p', { pool: 'slow' }),
      pass('q'),
      pass('r'),
      { id: 'j', kind: 'combine' },
    ],
    channels: [
      { from: 'h', to: 's' },
      { from: 's', to: 'p', when: "kind == 'a'" },
      { from: 's', to: 'q', when: "kind == 'b'" },
      { from: 'p', to: 'j' },
      { from: 'q', to: 'j' },
    ],
  }),
);
/** The same mesh with an unconditioned channel s → r besides the conditioned ones. */
const withLeaf = compilePlan({ ...plan.mesh, channels: [...plan.mesh.channels, { from: 's', to: 'r' }] });

const FRAME: Frame = { split: 'run-1:s', index: 0, count: 2 };
const msg = (member: string, extra: Partial<Claimed> = {}): Claimed => ({
  id: 'm1',
  runId: 'run-1',
  member,
  pool: 'default',
  seq: 0,
  depth: 3,
  frames: [],
  void: false,
  payload: {},
  attempts: 1,
  meshId: 'mesh-1',
  meshVersion: 1,
  ...extra,
});
const item = (payload: unknown, frames: Frame[] = [FRAME], isVoid = false): Item => ({ payload, frames, void: isVoid });
const idFor = (channel: string, index: number) => `${channel}#${index}`;

describe('routeItems', () => {
  it('writes one child per output and channel whose condition holds, with its id, depth and pool', () => {
    const { children, dropped } = routeItems(plan, msg('s'), [item({ kind: 'a', n: 1 }), item({ kind: 'b', n: 2 })], idFor);
    expect(dropped).toEqual([]);
    expect(children).toEqual([
      { id: 's->p#0', run_id: 'run-1', member: 'p', pool: 'slow', channel: 's->p', seq: 0, parent_id: 'm1', depth: 4, frames: [FRAME], void: false, payload: { kind: 'a', n: 1 } },
      { id: 's->q#1', run_id: 'run-1', member: 'q', pool: 'default', channel: 's->q', seq: 1, parent_id: 'm1', depth: 4, frames: [FRAME], void: false, payload: { kind: 'b', n: 2 } },
    ]);
  });

  it('sends a void on every channel, conditions skipped, with an empty payload', () => {
    const { children, dropped } = routeItems(plan, msg('s'), [item({ kind: 'zzz' }, [FRAME], true)], idFor);
    expect(dropped).toEqual([]);
    expect(children.map((c) => [c.channel, c.void, c.payload])).toEqual([
      ['s->p', true, {}],
      ['s->q', true, {}],
    ]);
  });

  it('drops a part no condition takes, counting it at the combine, and says why with the label', () => {
    const part = item({ kind: 'c' });
    expect(routeItems(plan, msg('s'), [item({ kind: 'a' }), part], idFor).dropped).toEqual([
      { index: 1, item: part, combines: ['j'], reason: "filtered at Sorter: no channel's condition held: s->p (kind == 'a'), s->q (kind == 'b')" },
    ]);
  });

  it('drops a part kept from its combine even when it goes on elsewhere, naming where it went', () => {
    const part = item({ kind: 'c' });
    const { children, dropped } = routeItems(withLeaf, msg('s'), [part], idFor);
    expect(children.map((c) => c.channel)).toEqual(['s->r']);
    expect(dropped).toEqual([
      {
        index: 0,
        item: part,
        combines: ['j'],
        reason: "filtered at Sorter on the way to a combine: s->p (kind == 'a'), s->q (kind == 'b'); it went on by s->r only",
      },
    ]);
  });

  it('names every channel a dropped part went on by', () => {
    const twoLeaves = compilePlan(
      MeshSchema.parse({ ...withLeaf.mesh, members: [...withLeaf.mesh.members, pass('t')], channels: [...withLeaf.mesh.channels, { from: 's', to: 't' }] }),
    );
    const [drop] = routeItems(twoLeaves, msg('s'), [item({ kind: 'c' })], idFor).dropped;
    expect(drop?.reason).toBe("filtered at Sorter on the way to a combine: s->p (kind == 'a'), s->q (kind == 'b'); it went on by s->r, s->t only");
  });

  it('drops nothing when a part reaches the combine by another channel', () => {
    expect(routeItems(withLeaf, msg('s'), [item({ kind: 'a' })], idFor).dropped).toEqual([]);
  });

  it('names a member without a label by its id, and counts nothing at a combine for a part without frames', () => {
    const unlabelled = compilePlan({ ...plan.mesh, members: plan.mesh.members.map((m) => (m.id === 's' ? { ...m, label: undefined } : m)) });
    const part = item({ kind: 'c' }, []);
    expect(routeItems(unlabelled, msg('s'), [part], idFor).dropped).toEqual([
      { index: 0, item: part, combines: [], reason: "filtered at s: no channel's condition held: s->p (kind == 'a'), s->q (kind == 'b')" },
    ]);
    // Without frames a part that went somewhere is not recorded as dropped: no combine waits for it.
    expect(routeItems(compilePlan({ ...unlabelled.mesh, channels: withLeaf.mesh.channels }), msg('s'), [part], idFor).dropped).toEqual([]);
  });

  it('routes nothing for a member the plan does not know, and nothing for a leaf', () => {
    expect(routeItems(plan, msg('nobody'), [item({ kind: 'a' })], idFor)).toEqual({ children: [], dropped: [] });
    expect(routeItems(plan, msg('j'), [item({ kind: 'a' })], idFor)).toEqual({ children: [], dropped: [] });
  });
});

describe('leafOutput', () => {
  it('is one payload, a list of several, or nothing, never counting voids', () => {
    expect(leafOutput([])).toBeUndefined();
    expect(leafOutput([item(1, [], true)])).toBeUndefined();
    expect(leafOutput([item(1, [], true), item({ a: 1 })])).toEqual({ value: { a: 1 } });
    expect(leafOutput([item(1), item(2, [], true), item(3)])).toEqual({ value: [1, 3] });
    expect(leafOutput([item(null)])).toEqual({ value: null });
  });
});
