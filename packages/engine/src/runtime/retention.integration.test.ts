/**
 * Retention prunes the trail of finished runs past their age, keeps runs with dead-lettered or lost
 * messages longer, never touches a run still going, and leaves the run row with its counts, output
 * and cause, which the run page and the Runs list still show.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { WORD_SPLIT, openWorld, saveOrThrow, type TestWorld } from '../../test/harness';
import { rows } from '../kernel/sql';
import { getRun, type RunView } from '../runs/get-run';
import { listRuns } from '../runs/list-runs';
import { startRun } from '../runs/start-run';
import { waitForRun } from '../runs/wait-run';
import { planReopen } from '../runs/reopen-plan';
import { startInProcess } from './in-process';
import { pruneRuns } from './retention';

const trailOf = async (world: TestWorld, runId: string) => {
  const [row] = await rows(
    world.engine.db,
    sql`select (select count(*)::int from messages where run_id = ${runId}) as messages,
               (select count(*)::int from join_parts where run_id = ${runId}) as parts,
               (select count(*)::int from joins where run_id = ${runId}) as joins`,
    z.object({ messages: z.number(), parts: z.number(), joins: z.number() }),
  );
  return row;
};

describe.each(['postgres', 'pglite'] as const)('retention on %s', (kind) => {
  let world: TestWorld;
  const ids: Record<string, string> = {};
  const before: Record<string, RunView> = {};
  const id = (name: string): string => {
    const got = ids[name];
    if (!got) throw new Error(`no run ${name}`);
    return got;
  };
  const was = (name: string): RunView => {
    const got = before[name];
    if (!got) throw new Error(`no view of run ${name}`);
    return got;
  };

  beforeAll(async () => {
    world = await openWorld(kind);
    const meshId = await saveOrThrow(world, WORD_SPLIT);
    const runtime = startInProcess(world.engine, { concurrency: 20 });
    try {
      for (const name of ['old', 'recent', 'oldDead', 'ancientDead', 'oldFailed', 'stalled', 'running']) {
        ids[name] = (await startRun(world.engine, { meshId, input: { text: `${name} one two\nthree` } })).runId;
      }
      for (const id of Object.values(ids)) await waitForRun(world.engine.db, id, { timeoutMs: 60_000 });
    } finally {
      await runtime.close();
    }
    const db = world.engine.db;
    const ago = (days: number) => sql`now() - make_interval(days => ${days})`;
    // Ages and states set by hand: the policy reads only statuses and times.
    await db.execute(sql`update runs set ended_at = ${ago(40)} where id in (${ids.old}, ${ids.oldDead}, ${ids.oldFailed})`);
    await db.execute(sql`update runs set ended_at = ${ago(10)} where id = ${ids.recent}`);
    await db.execute(sql`update runs set ended_at = ${ago(100)} where id = ${ids.ancientDead}`);
    for (const id of [ids.oldDead, ids.ancientDead]) {
      await db.execute(sql`update messages set status = 'dead', error = 'gave up' where id = (select id from messages where run_id = ${id} and member = 'words' limit 1)`);
    }
    await db.execute(sql`update runs set status = 'failed', cause = 'step_failed', cause_message = 'words failed' where id in (${ids.oldDead}, ${ids.ancientDead}, ${ids.oldFailed})`);
    // Not finished: never pruned, whatever their times say.
    await db.execute(sql`update runs set status = 'stalled', ended_at = ${ago(400)}, created_at = ${ago(400)} where id = ${ids.stalled}`);
    await db.execute(sql`update runs set status = 'running', ended_at = ${ago(400)}, created_at = ${ago(400)} where id = ${ids.running}`);
    for (const [name, id] of Object.entries(ids)) {
      const view = await getRun(db, id);
      if (!view) throw new Error(`no run ${name}`);
      before[name] = view;
    }
  }, 120_000);
  afterAll(async () => {
    await world.close();
  });

  it('prunes old finished runs only, the dead ones after the longer age, in bounded batches', async () => {
    const db = world.engine.db;
    const first = await pruneRuns(db, { days: 30, deadDays: 90, batch: 1 });
    expect(first.runs).toHaveLength(1);
    const rest = await pruneRuns(db, { days: 30, deadDays: 90 });
    const pruned = [...first.runs, ...rest.runs].sort();
    expect(pruned).toEqual([ids.old, ids.ancientDead].sort());
    expect(first.messages + rest.messages).toBe(was('old').counts.published + was('old').counts.filtered + was('ancientDead').counts.published + was('ancientDead').counts.filtered);
    expect(first.joinParts + rest.joinParts).toBeGreaterThan(0);
    for (const name of ['old', 'ancientDead']) expect(await trailOf(world, id(name))).toEqual({ messages: 0, parts: 0, joins: 0 });
    for (const name of ['recent', 'oldDead', 'oldFailed', 'stalled', 'running']) {
      const trail = await trailOf(world, id(name));
      expect(trail?.messages, name).toBe(was(name).counts.published + was(name).counts.filtered);
      expect(trail?.parts, name).toBeGreaterThan(0);
      expect((await getRun(db, id(name)))?.prunedAt, name).toBeNull();
    }
    // Nothing is pruned twice.
    expect((await pruneRuns(db, { days: 30, deadDays: 90 })).runs).toEqual([]);
  });

  it('keeps the run row with its counts, output and cause, and says the trail was pruned', async () => {
    const db = world.engine.db;
    for (const name of ['old', 'ancientDead']) {
      const view = await getRun(db, id(name));
      expect(view?.prunedAt).toBeInstanceOf(Date);
      expect(view?.counts).toEqual(was(name).counts);
      expect(view?.memberCounts).toEqual(was(name).memberCounts);
      expect(view?.output).toEqual(was(name).output);
      expect(view?.cause).toBe(was(name).cause);
      expect(view?.status).toBe(was(name).status);
    }
    expect(was('old').counts.done).toBeGreaterThan(5);
    expect(was('ancientDead').counts.deadLettered).toBe(1);
    const listed = (await listRuns(db, { limit: 50 })).items.find((r) => r.id === ids.old);
    expect(listed?.prunedAt).toBeInstanceOf(Date);
    expect(listed?.counts).toEqual(was('old').counts);
    const { refused } = await planReopen(db, [id('ancientDead')], 'pinned');
    expect(refused[0]?.reason).toMatch(/pruned/);
  });

  it('prunes nothing when both ages are 0 (keep forever), and refuses a negative age naming the field', async () => {
    expect((await pruneRuns(world.engine.db, { days: 0, deadDays: 0 })).runs).toEqual([]);
    await expect(pruneRuns(world.engine.db, { days: -1, deadDays: 0 })).rejects.toThrow(/retention days/);
  });
});
