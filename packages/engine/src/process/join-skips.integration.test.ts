import { sql } from 'drizzle-orm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CombineMember } from '@trellis/mesh/schema';
import { openWorld, type TestWorld } from '../../test/harness';
import { rows } from '../kernel/sql';
import type { Frame } from '../plan/frames';
import { arrive } from '../../test/join-arrive';
import type { Claimed } from './types';

const combine: CombineMember = { id: 'join', kind: 'combine', merge: { type: 'concat', field: 'text' } };
const OUTER: Frame = { split: 'outer', index: 1, count: 2 };

function part(id: string, index: number, count: number, text: string, split = 'inner'): Claimed {
  return {
    id,
    runId: 'r',
    member: 'join',
    pool: 'default',
    seq: index,
    depth: 3,
    frames: [OUTER, { split, index, count }],
    void: false,
    payload: { text },
    attempts: 1,
    meshId: 'm',
    meshVersion: 1,
  };
}

// The keyed join's paths beside plain arrivals (process/join.integration.test.ts): no frame,
// skipped parts, several keys in one batch, and the frames the fired output keeps.
describe('keyed join: skips, keys and frames', () => {
  let world: TestWorld;
  beforeEach(async () => {
    world = await openWorld('postgres');
  });
  afterEach(async () => {
    await world.close();
  });
  const joins = async () =>
    rows<{ key: string; received: number; skipped: number; fired: boolean }>(
      world.engine.db,
      sql`select key, received, skipped, fired_at is not null as fired from joins order by key`,
    );

  it('fires a message with no frame alone, keyed by its id, and never a frameless skip', async () => {
    const db = world.engine.db;
    const alone: Claimed = { ...part('m-alone', 0, 1, 'solo '), frames: [] };
    const fired = await db.transaction((tx) => arrive(tx, [{ msg: alone, member: combine }, { msg: { ...alone, id: 'm-skip' }, member: combine, skip: { partId: 'p-x' } }]));
    expect(fired).toEqual([{ msg: alone, member: combine, key: 'm-alone', item: { payload: { text: 'solo ' }, frames: [], void: false } }]);
    expect(await joins()).toEqual([]);
  });

  it('counts a skipped part without merging it, and hangs the output on the arrived part', async () => {
    const db = world.engine.db;
    const a = part('m-a', 0, 3, 'a ');
    const c = part('m-c', 2, 3, 'c ');
    const dropper = part('m-b', 1, 3, 'dropped ');
    expect(await db.transaction((tx) => arrive(tx, [{ msg: a, member: combine }]))).toEqual([]);
    // The skip comes before the last arrived part in the batch and after it: the output hangs on c both ways.
    for (const order of [
      [{ msg: dropper, member: combine, skip: { partId: 'p-b' } }, { msg: c, member: combine }],
      [{ msg: c, member: combine }, { msg: dropper, member: combine, skip: { partId: 'p-b' } }],
    ]) {
      await db.execute(sql`delete from join_parts where message_id <> 'm-a'`);
      await db.execute(sql`update joins set received = 1, skipped = 0, fired_at = null`);
      const fired = await db.transaction((tx) => arrive(tx, order));
      expect(fired).toEqual([{ msg: c, member: combine, key: 'inner', item: { payload: { text: 'a c ' }, frames: [OUTER], void: false }, waitedSeconds: expect.any(Number) as number }]);
      expect(await joins()).toEqual([{ key: 'inner', received: 3, skipped: 1, fired: true }]);
    }
  });

  it('fires a join whose every part was skipped once, with the empty set, on the dropping message', async () => {
    const db = world.engine.db;
    const first = part('m-1', 0, 2, 'x ');
    const second = part('m-2', 1, 2, 'y ');
    const fired = await db.transaction((tx) =>
      arrive(tx, [
        { msg: first, member: combine, skip: { partId: 'p-1' } },
        { msg: second, member: combine, skip: { partId: 'p-2' } },
      ]),
    );
    expect(fired).toEqual([{ msg: second, member: combine, key: 'inner', item: { payload: { text: '' }, frames: [OUTER], void: false }, waitedSeconds: expect.any(Number) as number }]);
    // A skip redelivered counts once: nothing fires again.
    expect(await db.transaction((tx) => arrive(tx, [{ msg: second, member: combine, skip: { partId: 'p-2' } }]))).toEqual([]);
    expect(await joins()).toEqual([{ key: 'inner', received: 2, skipped: 2, fired: true }]);
  });

  it('keeps the keys of one batch apart: one fires, the other waits', async () => {
    const db = world.engine.db;
    const [first, second] = [part('k1-0', 0, 2, 'a ', 'k1'), part('k1-1', 1, 2, 'b ', 'k1')];
    const waiting = part('k2-0', 0, 2, 'z ', 'k2');
    const fired = await db.transaction((tx) => arrive(tx, [{ msg: second, member: combine }, { msg: waiting, member: combine }, { msg: first, member: combine }]));
    expect(fired.map((f) => [f.key, f.item.payload, f.msg.id])).toEqual([['k1', { text: 'a b ' }, 'k1-0']]);
    expect(await joins()).toEqual([
      { key: 'k1', received: 2, skipped: 0, fired: true },
      { key: 'k2', received: 1, skipped: 0, fired: false },
    ]);
  });
});
