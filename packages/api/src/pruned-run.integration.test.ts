/** A run whose trail retention pruned still opens on the run page (runs.get) and in the Runs list, and says so. */
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { pruneRuns } from '@trellis/engine/runtime/retention';
import { startRun } from '@trellis/engine/runs/start-run';
import { waitForRun } from '@trellis/engine/runs/wait-run';
import { addUser } from '@trellis/engine/users/add-user';
import { saveOrThrow, useWorlds, WORD_SPLIT } from '../../engine/test/harness';
import { appRouter } from './root';

describe('a pruned run', () => {
  const worlds = useWorlds();

  it('opens with its counts and output and says its trail was pruned', { timeout: 120_000 }, async () => {
    const world = await worlds.open();
    const meshId = await saveOrThrow(world, WORD_SPLIT);
    worlds.start(world, { pools: ['default'], concurrency: 4 });
    const { runId } = await startRun(world.engine, { meshId, input: { text: 'kept counts' } });
    await waitForRun(world.engine.db, runId, { timeoutMs: 30_000 });
    const u = await addUser(world.engine.db, { email: 'viewer@pruned.test', role: 'operator', password: 'pruned-password' });
    const trpc = appRouter.createCaller({ session: { userId: u.id, sessionVersion: 1 }, db: world.engine.db, engine: world.engine });
    const live = await trpc.runs.get({ runId });
    expect(live.prunedAt).toBeNull();

    await world.engine.db.execute(sql`update runs set ended_at = now() - interval '31 days' where id = ${runId}`);
    expect((await pruneRuns(world.engine.db, { days: 30, deadDays: 90 })).runs).toEqual([runId]);
    const pruned = await trpc.runs.get({ runId });
    expect(pruned.prunedAt).toBeInstanceOf(Date);
    expect(pruned.counts).toEqual(live.counts);
    expect(pruned.memberCounts).toEqual(live.memberCounts);
    expect(pruned.output).toEqual({ text: 'kept counts' });
    expect((await trpc.runs.messages({ runId })).items).toEqual([]);
    const listed = (await trpc.runs.list({})).items.find((r) => r.id === runId);
    expect(listed?.prunedAt).toBeInstanceOf(Date);
    expect(listed?.counts.done).toBe(live.counts.done);
  });
});
