import { describe, expect, it } from 'vitest';
import wordSplit from '../../../examples/meshes/word-split.json';
import { joinsAcross, outputDepths } from './join-paths';
import { MeshSchema, type MeshInput } from './schema';

const parse = (members: MeshInput['members'], channels: MeshInput['channels']) =>
  MeshSchema.parse({ format: 'trellis.mesh/v1', name: 'm', members, channels });
const split = (id: string, by: 'page' | 'line' | 'word', head = false) => ({ id, kind: 'workflow' as const, head, steps: [{ type: 'split' as const, by }] });
const pass = (id: string) => ({ id, kind: 'workflow' as const, steps: [{ type: 'pass' as const }] });
const combine = (id: string) => ({ id, kind: 'combine' as const });

describe('joinsAcross', () => {
  it('finds the combine that pops the frame on top of the sender, through other members', () => {
    const mesh = parse(
      [split('s', 'word', true), pass('keep'), { id: 'a', kind: 'agent', model: 'demo' }, combine('join'), pass('after')],
      [{ from: 's', to: 'keep' }, { from: 'keep', to: 'a' }, { from: 'a', to: 'join' }, { from: 'join', to: 'after' }],
    );
    const got = joinsAcross(mesh);
    expect(got.get('s->keep')).toEqual(['join']);
    expect(got.get('a->join')).toEqual(['join']);
    expect(got.get('join->after')).toEqual([]);
  });

  it('matches nested splits with their own combines (the word-split mesh)', () => {
    const mesh = MeshSchema.parse(wordSplit);
    const got = joinsAcross(mesh);
    // Each split's channel leads to the combine of the level it opens, not to an outer one.
    for (const [name, combines] of got) expect(combines.length, name).toBeLessThanOrEqual(1);
    const byFrom = new Map(mesh.channels.map((c) => [c.from, got.get(c.id ?? `${c.from}->${c.to}`)]));
    const combinesIds = mesh.members.filter((m) => m.kind === 'combine').map((m) => m.id);
    // Every combine of the mesh is the target of at least one channel.
    expect(new Set([...byFrom.values()].flat())).toEqual(new Set(combinesIds));
  });

  it('skips past an inner split and its combine to the outer combine', () => {
    const mesh = parse(
      [split('pages', 'page', true), pass('gate'), split('lines', 'line'), combine('lj'), combine('pj')],
      [{ from: 'pages', to: 'gate' }, { from: 'gate', to: 'lines' }, { from: 'lines', to: 'lj' }, { from: 'lj', to: 'pj' }],
    );
    expect(joinsAcross(mesh).get('pages->gate')).toEqual(['pj']);
    expect(joinsAcross(mesh).get('lines->lj')).toEqual(['lj']);
  });

  it('ends on a loop instead of spinning', () => {
    const mesh = parse([split('s', 'word', true), split('t', 'word')], [{ from: 's', to: 't' }, { from: 't', to: 't' }]);
    expect(joinsAcross(mesh).get('t->t')).toEqual([]);
  });
});

describe('outputDepths', () => {
  it('counts the frames each member sends with, over every path', () => {
    const mesh = parse(
      [split('s', 'word', true), pass('keep'), combine('join'), pass('after'), combine('alone')],
      [{ from: 's', to: 'keep' }, { from: 'keep', to: 'join' }, { from: 'join', to: 'after' }, { from: 'after', to: 'alone' }],
    );
    const d = outputDepths(mesh);
    expect([...(d.get('s') ?? [])]).toEqual([1]);
    expect([...(d.get('keep') ?? [])]).toEqual([1]);
    expect([...(d.get('join') ?? [])]).toEqual([0]);
    expect([...(d.get('alone') ?? [])]).toEqual([0]);
  });
});
