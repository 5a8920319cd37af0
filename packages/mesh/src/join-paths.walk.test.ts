import { describe, expect, it } from 'vitest';
import { framesPushed, joinsAcross, outputDepths } from './join-paths';
import { MeshSchema, type MeshInput } from './schema';

type MemberInput = MeshInput['members'][number];
const steps = (...types: string[]) => types.map((type) => (type === 'split' ? { type, by: 'word' } : type === 'email' ? { type } : { type }));
const flow = (id: string, types: string[], head = false): MemberInput => ({ id, kind: 'workflow', steps: steps(...types), ...(head ? { head } : {}) }) as MemberInput;
const combine = (id: string): MemberInput => ({ id, kind: 'combine' });
const parse = (members: MemberInput[], channels: [string, string][]) =>
  MeshSchema.parse({ format: 'trellis.mesh/v1', name: 'm', members, channels: channels.map(([from, to]) => ({ from, to })) });
const depthsOf = (d: Map<string, Set<number>>) => Object.fromEntries([...d].map(([id, s]) => [id, [...s].sort()]));

describe('the walk behind join warnings', () => {
  it('pushes one frame per split and per email step, none for other steps or kinds', () => {
    const mesh = parse([flow('w', ['split', 'pass', 'email', 'split'], true), combine('j'), { id: 'a', kind: 'agent', model: 'demo' }], []);
    expect(mesh.members.map(framesPushed)).toEqual([3, 0, 0]);
  });

  it('follows every channel out of a member, not only its last', () => {
    const mesh = parse(
      [flow('h', ['pass'], true), flow('s', ['split']), flow('p', ['pass']), combine('j'), flow('other', ['pass'])],
      [['h', 's'], ['s', 'p'], ['p', 'j'], ['p', 'other']],
    );
    expect(joinsAcross(mesh).get('s->p')).toEqual(['j']);
    const depths = outputDepths(mesh);
    expect(depthsOf(depths)).toEqual({ h: [0], s: [1], p: [1], j: [0], other: [1] });
  });

  it('carries a member that pushes several frames at once through to what it sends', () => {
    const three = parse([flow('h', ['pass'], true), flow('w', ['split', 'split', 'split']), flow('p', ['pass'])], [['h', 'w'], ['w', 'p']]);
    expect(depthsOf(outputDepths(three))).toEqual({ h: [0], w: [3], p: [3] });
    const four = parse([flow('h', ['pass'], true), flow('w', ['split', 'split', 'split', 'split']), flow('p', ['pass'])], [['h', 'w'], ['w', 'p']]);
    expect(depthsOf(outputDepths(four))).toEqual({ h: [0], w: [4], p: [4] });
  });

  it('ends on a loop through a split instead of counting frames forever', () => {
    const mesh = parse([flow('h', ['pass'], true), flow('s', ['split'])], [['h', 's'], ['s', 's']]);
    const depths = outputDepths(mesh).get('s');
    expect(depths?.has(1)).toBe(true);
    // Bounded by the mesh's size: no real mesh nests more splits than it has members.
    expect(Math.max(...(depths ?? []))).toBeLessThanOrEqual(mesh.members.length + 2);
  });
});
