/**
 * Claiming on an ended run, on Postgres, with no worker: batches are processed by hand so the
 * moment the run ends is exact. A run that fails mid fan-out leaves light messages pending; when
 * their deliveries arrive they are cancelled, never completed: no child, no join part, no output.
 */
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { WORD_SPLIT, saveOrThrow, type TestWorld, useWorlds } from '../../test/harness';
import { failRun } from './run-end';
import { startRun } from '../runs/start-run';
import { rows } from '../kernel/sql';
import { processBatch } from './batch';
import type { Delivery } from './claim';

/** The run's open messages, as the deliveries their jobs would bring. */
async function pending(world: TestWorld, runId: string): Promise<Delivery[]> {
  return rows<Delivery>(
    world.engine.db,
    sql`select id as "messageId", run_id as "runId", member from messages where run_id = ${runId} and status = 'pending' order by id`,
  );
}

async function tally(world: TestWorld, runId: string) {
  const [t] = await rows<{ messages: number; done: number; cancelled: number; parts: number; joins: number }>(
    world.engine.db,
    sql`select (select count(*)::int from messages where run_id = ${runId}) as messages,
               (select count(*)::int from messages where run_id = ${runId} and status = 'done') as done,
               (select count(*)::int from messages where run_id = ${runId} and status = 'cancelled') as cancelled,
               (select count(*)::int from join_parts where run_id = ${runId}) as parts,
               (select count(*)::int from joins where run_id = ${runId}) as joins`,
  );
  return t;
}

describe('light messages of an ended run', () => {
  const worlds = useWorlds();

  it('are cancelled when delivered after the run failed mid fan-out: no new children, no join parts', async () => {
    const world = await worlds.open();
    const meshId = await saveOrThrow(world, WORD_SPLIT);
    const { runId } = await startRun(world.engine, { meshId, input: { text: 'a b\nc d e' } });
    // pages → 1 page → 2 lines → 5 words: the run is mid fan-out, five parts on their way to `join-words`.
    for (let hop = 0; hop < 3; hop++) await processBatch(world.engine, await pending(world, runId));
    const words = await pending(world, runId);
    expect(words.map((d) => d.member)).toEqual(Array.from({ length: 5 }, () => 'join-words'));
    const before = await tally(world, runId);
    expect(before).toMatchObject({ messages: 9, done: 4, parts: 0, joins: 0 });

    expect(await failRun(world.engine.db, runId, { cause: 'step_code_failed', member: 'lines', detail: 'failed by the test' })).toBe(true);
    const outcomes = await processBatch(world.engine, words);
    expect([...outcomes.values()]).toEqual(words.map(() => ({ kind: 'ack' })));
    expect(await tally(world, runId)).toEqual({ ...before, cancelled: 5 });
    const [run] = await rows<{ status: string; output: unknown }>(world.engine.db, sql`select status, output from runs where id = ${runId}`);
    expect(run).toEqual({ status: 'failed', output: null });
  });
});
