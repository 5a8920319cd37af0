import { describe, expect, it } from 'vitest';
import { Batcher } from './batcher';

describe('Batcher', () => {
  it('groups submissions made together, answers each by key, and keeps one batch in flight', async () => {
    const seen: string[][] = [];
    let inFlight = 0;
    let most = 0;
    const b = new Batcher<number, string>(
      async (items) => {
        inFlight++;
        most = Math.max(most, inFlight);
        seen.push(items.map(String));
        await new Promise((r) => setTimeout(r, 5));
        inFlight--;
        return new Map(items.map((n) => [`k${n}`, `v${n}`]));
      },
      { maxBatch: 3, maxInFlight: 1 },
    );
    const results = await Promise.all([1, 2, 3, 4, 5].map((n) => b.submit(`k${n}`, n)));
    expect(results).toEqual(['v1', 'v2', 'v3', 'v4', 'v5']);
    expect(seen).toEqual([['1', '2', '3'], ['4', '5']]);
    expect(most).toBe(1);
  });

  it('processes a duplicate key once and rejects everyone in a failing batch', async () => {
    let calls = 0;
    const b = new Batcher<string, string>(
      (items) => {
        calls += items.length;
        return items.includes('bad') ? Promise.reject(new Error('boom')) : Promise.resolve(new Map(items.map((i) => [i, i])));
      },
      { maxBatch: 10, maxInFlight: 2 },
    );
    expect(await Promise.all([b.submit('a', 'a'), b.submit('a', 'a')])).toEqual(['a', 'a']);
    expect(calls).toBe(1);
    await expect(Promise.all([b.submit('bad', 'bad'), b.submit('ok', 'ok')])).rejects.toThrow('boom');
  });

  it('refuse(): the batch in flight finishes, the waiting items and later submits get the refusal', async () => {
    const seen: number[][] = [];
    const b = new Batcher<number, string>(
      async (items) => {
        seen.push(items);
        await new Promise((r) => setTimeout(r, 20));
        return new Map(items.map((n) => [`k${n}`, `v${n}`]));
      },
      { maxBatch: 2, maxInFlight: 1 },
    );
    const first = [1, 2, 3, 4].map((n) => b.submit(`k${n}`, n));
    await new Promise((r) => setTimeout(r, 5));
    expect(b.refuse('back')).toBe(2);
    expect(await b.submit('k5', 5)).toBe('back');
    expect(await Promise.all(first)).toEqual(['v1', 'v2', 'back', 'back']);
    expect(seen).toEqual([[1, 2]]);
  });
});
