/**
 * The batch commit's two ways out of a failed transaction, on Postgres, with batches processed by
 * hand (no worker): a transaction that fails for one message is retried message by message, so the
 * others commit; a deadlock is retried whole, in place. Faults are planted with triggers on the
 * test's own database.
 */
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { WORD_SPLIT, saveOrThrow, type TestWorld, useWorlds } from '../../test/harness';
import { startRun } from '../runs/start-run';
import { rows } from '../kernel/sql';
import { processBatch } from './batch';
import type { Delivery } from './claim';

async function pending(world: TestWorld, runId: string): Promise<Delivery[]> {
  return rows<Delivery>(
    world.engine.db,
    sql`select id as "messageId", run_id as "runId", member from messages where run_id = ${runId} and status = 'pending' order by seq`,
  );
}

/** A word-split run of three pages (form feeds) with its three `lines` messages pending, ready to be processed as one batch. */
async function threeLines(world: TestWorld, text: string): Promise<{ runId: string; lines: Delivery[] }> {
  const meshId = await saveOrThrow(world, WORD_SPLIT);
  const { runId } = await startRun(world.engine, { meshId, input: { text } });
  await processBatch(world.engine, await pending(world, runId));
  const lines = await pending(world, runId);
  expect(lines.map((d) => d.member)).toEqual(['lines', 'lines', 'lines']);
  return { runId, lines };
}

const childrenOf = async (world: TestWorld, parentId: string) =>
  (await rows<{ n: number }>(world.engine.db, sql`select count(*)::int as n from messages where parent_id = ${parentId}`))[0]?.n;

describe('batch commit', () => {
  const worlds = useWorlds();

  it('retries a failed batch message by message: one bad message fails alone, the others commit', async () => {
    const world = await worlds.open();
    const { lines } = await threeLines(world, 'a\nb\fpoison x\ff');
    // Any child message carrying the word "poison" makes its insert fail (not a retryable error).
    await world.engine.db.execute(sql`create function poison() returns trigger language plpgsql as $$
      begin
        if new.payload::text like '%poison%' then raise exception 'poisoned child %', new.id; end if;
        return new;
      end $$`);
    await world.engine.db.execute(sql`create trigger poison before insert on messages for each row execute function poison()`);

    const outcomes = await processBatch(world.engine, lines);
    const [good1, bad, good2] = lines.map((d) => outcomes.get(d.messageId));
    expect(good1).toEqual({ kind: 'ack' });
    expect(good2).toEqual({ kind: 'ack' });
    // The driver's error, wrapped by the query builder, is the message's own failure.
    expect(bad).toMatchObject({ kind: 'failed', error: { cause: { message: expect.stringMatching(/poisoned child/) as unknown } } });
    const status = await rows<{ id: string; status: string }>(
      world.engine.db,
      sql`select id, status from messages where member = 'lines' order by seq`,
    );
    expect(status.map((s) => s.status)).toEqual(['done', 'pending', 'done']);
    expect([await childrenOf(world, lines[0]?.messageId ?? ''), await childrenOf(world, lines[1]?.messageId ?? ''), await childrenOf(world, lines[2]?.messageId ?? '')]).toEqual([2, 0, 1]);
  });

  it('retries a deadlocked batch whole, in place: every message commits in one more transaction', async () => {
    const world = await worlds.open();
    const { lines } = await threeLines(world, 'a\nb\fc\fd\ne\nf');
    // The first insert into messages reports a deadlock (40P01); a sequence counts the inserts,
    // outside the transactions it is rolled back with.
    await world.engine.db.execute(sql`create sequence inserts`);
    await world.engine.db.execute(sql`create function deadlock_once() returns trigger language plpgsql as $$
      begin
        if nextval('inserts') = 1 then raise exception 'deadlock planted by the test' using errcode = '40P01'; end if;
        return null;
      end $$`);
    await world.engine.db.execute(sql`create trigger deadlock_once before insert on messages for each statement execute function deadlock_once()`);

    const outcomes = await processBatch(world.engine, lines);
    for (const d of lines) expect(await outcomes.get(d.messageId)).toEqual({ kind: 'ack' });
    const status = await rows<{ status: string }>(world.engine.db, sql`select status from messages where member = 'lines' order by seq`);
    expect(status.map((s) => s.status)).toEqual(['done', 'done', 'done']);
    expect(await rows(world.engine.db, sql`select count(*)::int as n from messages where member = 'words'`)).toEqual([{ n: 6 }]);
    // Two insert statements in all: the deadlocked one and the retry of the whole batch; message by
    // message would have taken one per page.
    expect(await rows(world.engine.db, sql`select last_value::int as n from inserts`)).toEqual([{ n: 2 }]);
  });
});
