import { createHash } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CombineMember } from '@trellis/mesh/schema';
import { openWorld, type TestWorld } from '../../test/harness';
import { rows } from '../kernel/sql';
import { arrive } from '../../test/join-arrive';
import type { Claimed } from './types';

const combine: CombineMember = { id: 'join', kind: 'combine', merge: { type: 'concat', field: 'text' } };

/** A part as the engine makes one: its id is unique to its split and index (a message id, kernel/ids.ts). */
function part(runId: string, index: number, count: number, text: string, split = 'split-1'): Claimed {
  return {
    id: createHash('sha256').update(JSON.stringify([runId, split, index])).digest('hex'),
    runId,
    member: 'join',
    pool: 'default',
    seq: index,
    depth: 3,
    frames: [{ split, index, count }],
    void: false,
    payload: { text },
    attempts: 1,
    meshId: 'm',
    meshVersion: 1,
  };
}


/** Both databases, or those named in TRELLIS_TEST_KINDS (comma-separated; the mutation runs name postgres alone). */
const KINDS = (['postgres', 'pglite'] as const).filter((k) => (process.env.TRELLIS_TEST_KINDS ?? 'postgres,pglite').split(',').includes(k));

describe.each(KINDS)('keyed join on %s', (kind) => {
  let world: TestWorld;
  beforeEach(async () => {
    world = await openWorld(kind);
  });
  afterEach(async () => {
    await world.close();
  });

  const joinRow = async () =>
    (await rows<{ received: number; expected: number; fired: boolean }>(world.engine.db, sql`select received, expected, fired_at is not null as fired from joins`))[0];

  it('counts a redelivered part once and fires once, parts in seq order', async () => {
    const db = world.engine.db;
    const a = part('r', 0, 3, 'a ');
    const b = part('r', 1, 3, 'b ');
    const c = part('r', 2, 3, 'c');
    expect(await db.transaction((tx) => arrive(tx, [{ msg: b, member: combine }]))).toEqual([]);
    expect(await db.transaction((tx) => arrive(tx, [{ msg: b, member: combine }]))).toEqual([]);
    expect(await joinRow()).toMatchObject({ received: 1, expected: 3, fired: false });
    const fired = await db.transaction((tx) => arrive(tx, [{ msg: c, member: combine }, { msg: a, member: combine }]));
    expect(fired).toHaveLength(1);
    expect(fired[0]?.item.payload).toEqual({ text: 'a b c' });
    expect(fired[0]?.item.frames).toEqual([]);
    // A part arriving again after the join fired changes nothing and fires nothing.
    expect(await db.transaction((tx) => arrive(tx, [{ msg: a, member: combine }]))).toEqual([]);
    expect(await joinRow()).toMatchObject({ received: 3, fired: true });
  });

  it('fires on the last part only, never one part early, whichever order the parts arrive in', async () => {
    const db = world.engine.db;
    for (const [round, order] of [[0, 1, 2, 3], [3, 1, 0, 2]].entries()) {
      const split = `split-order-${round}`;
      const parts = order.map((i) => part('r', i, 4, `${i}`, split));
      for (const [n, p] of parts.entries()) {
        const fired = await db.transaction((tx) => arrive(tx, [{ msg: p, member: combine }]));
        expect(fired.map((f) => f.key), `after part ${n + 1} of 4`).toEqual(n < 3 ? [] : [split]);
      }
      const [row] = await rows<{ received: number; fired: boolean }>(db, sql`select received, fired_at is not null as fired from joins where key = ${split}`);
      expect(row).toEqual({ received: 4, fired: true });
    }
  });

  it('fires a zero-part split once with the empty set', async () => {
    const db = world.engine.db;
    const v: Claimed = { ...part('r', 0, 0, ''), void: true, payload: {} };
    const first = await db.transaction((tx) => arrive(tx, [{ msg: v, member: combine }]));
    expect(first.map((f) => f.item.payload)).toEqual([{ text: '' }]);
    expect(await db.transaction((tx) => arrive(tx, [{ msg: v, member: combine }]))).toEqual([]);
    // A void is no part: nothing is counted or stored for it.
    expect(await joinRow()).toEqual({ received: 0, expected: 0, fired: true });
    const [stored] = await rows<{ n: number }>(db, sql`select count(*)::int as n from join_parts`);
    expect(stored?.n).toBe(0);
    // A collecting combine gathers the empty list.
    const collect: CombineMember = { id: 'join', kind: 'combine', merge: { type: 'collect', into: 'parts' } };
    const empty: Claimed = { ...part('r', 0, 0, '', 'split-collect'), void: true, payload: {} };
    expect((await db.transaction((tx) => arrive(tx, [{ msg: empty, member: collect }]))).map((f) => f.item.payload)).toEqual([{ parts: [] }]);
  });
});

describe('concurrent last parts on postgres', () => {
  let world: TestWorld;
  beforeEach(async () => {
    world = await openWorld('postgres');
  });
  afterEach(async () => {
    await world.close();
  });

  it('fire the join exactly once', async () => {
    const db = world.engine.db;
    for (let round = 0; round < 15; round++) {
      const split = `split-${round}`;
      // Two transactions each hold one of the two last parts; both are open before either commits.
      let arrived = 0;
      let release: () => void = () => undefined;
      const bothIn = new Promise<void>((r) => (release = r));
      const racer = (p: Claimed) =>
        db.transaction(async (tx) => {
          await tx.execute(sql`select 1`);
          if (++arrived === 2) release();
          await bothIn;
          return arrive(tx, [{ msg: p, member: combine }]);
        });
      const results = await Promise.all([racer(part('r', 0, 2, 'x ', split)), racer(part('r', 1, 2, 'y', split))]);
      const fired = results.flat();
      expect(fired).toHaveLength(1);
      expect(fired[0]?.item.payload).toEqual({ text: 'x y' });
    }
  });
});
