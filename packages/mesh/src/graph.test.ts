import { describe, expect, it } from 'vitest';
import { adjacency, cycles, reachableFrom, type Edge } from './graph';

const edges = (...pairs: string[]): Edge[] =>
  pairs.map((p) => {
    const [from = '', to = ''] = p.split('>');
    return { from, to };
  });

/** Components as sorted id lists, sorted, so a test states the exact partition. */
const sets = (found: Set<string>[]): string[][] =>
  found.map((s) => [...s].sort()).sort((a, b) => a.join().localeCompare(b.join()));

describe('adjacency', () => {
  it('lists successors in edge order, gives lone nodes an empty list and drops edges from unknown nodes', () => {
    const next = adjacency(['a', 'b', 'c'], edges('a>b', 'a>c', 'x>a', 'b>c'));
    expect([...next]).toEqual([
      ['a', ['b', 'c']],
      ['b', ['c']],
      ['c', []],
    ]);
  });
});

describe('reachableFrom', () => {
  const next = adjacency(['a', 'b', 'c', 'd', 'e'], edges('a>b', 'b>c', 'c>a', 'd>e'));

  it('holds the starts and everything they lead to, through a cycle, and nothing else', () => {
    expect([...reachableFrom(['b'], next)].sort()).toEqual(['a', 'b', 'c']);
    expect([...reachableFrom(['e'], next)]).toEqual(['e']);
    expect([...reachableFrom(['a', 'd'], next)].sort()).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect([...reachableFrom([], next)]).toEqual([]);
  });

  it('follows a long chain to its end', () => {
    const ids = Array.from({ length: 2000 }, (_, i) => `n${i}`);
    const chain = adjacency(ids, ids.slice(1).map((to, i) => ({ from: `n${i}`, to })));
    expect(reachableFrom(['n1000'], chain).size).toBe(1000);
  });
});

describe('cycles', () => {
  it('finds nothing in a graph without cycles: a chain, a diamond, a cross edge into a finished branch', () => {
    expect(cycles(['a', 'b', 'c'], edges('a>b', 'b>c'))).toEqual([]);
    expect(cycles(['a', 'b', 'c', 'd'], edges('a>b', 'a>c', 'b>d', 'c>d'))).toEqual([]);
    // b is finished (its own component) before c reaches it: that edge closes no cycle.
    expect(cycles(['a', 'b', 'c'], edges('a>b', 'a>c', 'c>b'))).toEqual([]);
    expect(cycles(['a'], [])).toEqual([]);
  });

  it('finds a node with an edge to itself, but not a lone node', () => {
    expect(sets(cycles(['a', 'b'], edges('a>b', 'b>b')))).toEqual([['b']]);
  });

  it('finds a cycle closed deep below its root as one component (low links carry up the chain)', () => {
    expect(sets(cycles(['a', 'b', 'c', 'd'], edges('a>b', 'b>c', 'c>a', 'c>d')))).toEqual([['a', 'b', 'c']]);
  });

  it('merges cycles that share a node, and keeps separate ones apart', () => {
    const found = cycles(['a', 'b', 'c', 'd', 'e', 'f', 'g'], edges('a>b', 'b>a', 'b>c', 'c>d', 'd>c', 'd>b', 'e>f', 'f>e', 'g>e'));
    expect(sets(found)).toEqual([
      ['a', 'b', 'c', 'd'],
      ['e', 'f'],
    ]);
  });

  it('finds a cycle reached from a later root, and an edge back to a node on the stack above the parent', () => {
    // Starting at x: x>y>z>y is a cycle {y, z}; w is a root of its own whose edge into z closes nothing.
    expect(sets(cycles(['w', 'x', 'y', 'z'], edges('x>y', 'y>z', 'z>y', 'w>z')))).toEqual([['y', 'z']]);
    // z's edge to x (two frames up) lowers z, then y, then x: one component of three.
    expect(sets(cycles(['x', 'y', 'z'], edges('x>y', 'y>z', 'z>x', 'z>y')))).toEqual([['x', 'y', 'z']]);
  });

  it('walks a chain of 3,000 nodes closed into one loop without overflowing the stack', () => {
    const ids = Array.from({ length: 3000 }, (_, i) => `n${i}`);
    const ring = ids.map((from, i) => ({ from, to: ids[(i + 1) % ids.length] ?? '' }));
    const found = cycles(ids, ring);
    expect(found.map((s) => s.size)).toEqual([3000]);
  });
});
