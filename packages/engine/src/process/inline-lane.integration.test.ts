/**
 * The inline lane on real Postgres and Redis: light children stay with the worker that committed
 * them (far fewer BullMQ jobs, the run still exact), and the relay leaves a live inline lease alone
 * but re-adds a lapsed one as a job with the message's own id.
 */
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { WORD_SPLIT, expectExactDone, licensesText, pages, saveOrThrow, useWorlds, type TestWorld } from '../../test/harness';
import { startRun } from '../runs/start-run';
import { waitForRun } from '../runs/wait-run';
import { relayOnce } from '../runtime/relay';

/** Counts the jobs added to the world's `default` queue from now on (the real queue, observed). */
function countJobs(world: TestWorld): { readonly added: number } {
  const queue = world.engine.queue('default');
  const addBulk = queue.addBulk.bind(queue);
  const counter = { added: 0 };
  queue.addBulk = (jobs) => {
    counter.added += jobs.length;
    return addBulk(jobs);
  };
  return counter;
}

describe('inline lane', () => {
  const worlds = useWorlds();

  async function wordSplit(inlineMax: number): Promise<{ jobs: number; messages: number }> {
    const world = await worlds.open({ inlineMax });
    const meshId = await saveOrThrow(world, WORD_SPLIT);
    const jobs = countJobs(world);
    const runtime = worlds.start(world, { pools: ['default'], concurrency: 200 });
    const doc = pages(licensesText(), 2);
    const { runId } = await startRun(world.engine, { meshId, input: { bytes: doc } });
    const view = await waitForRun(world.engine.db, runId, { timeoutMs: 150_000 });
    await runtime.close();
    const ex = await expectExactDone(world.engine.db, view.id);
    expect(Buffer.from((view.output as { text: string }).text, 'utf8').equals(doc)).toBe(true);
    expect(ex.delivered).toBe(ex.published);
    return { jobs: jobs.added, messages: ex.published };
  }

  it('a word-split run publishes a small fraction of its messages as BullMQ jobs and ends exact', { timeout: 400_000 }, async () => {
    const off = await wordSplit(0);
    const on = await wordSplit(25_000);
    // Without the lane every message is a job (the head's added by startRun).
    expect(off.jobs).toBe(off.messages);
    expect(on.messages).toBe(off.messages);
    expect(on.jobs).toBeLessThan(off.messages / 20);
  });

  it('the relay skips a pending row under a live inline lease and re-adds it, same id, once the lease lapses', async () => {
    const world = await worlds.open({ relayAfterMs: 0 });
    const { engine } = world;
    const meshId = await saveOrThrow(world, WORD_SPLIT);
    const { runId, messageId } = await startRun(engine, { meshId, input: { text: 'held inline\n' } });
    // As a worker's inline child: a leased pending row with no job.
    await engine.queue('default').remove(messageId);
    await engine.db.execute(sql`update messages set lease_owner = 'inline:test', lease_until = now() + interval '1 minute' where id = ${messageId}`);
    expect(await relayOnce(engine, undefined)).toMatchObject({ checked: 0, requeued: 0 });
    expect(await engine.queue('default').getJob(messageId)).toBeUndefined();
    // Its worker died: the lease lapses and the relay turns the row into an ordinary job.
    await engine.db.execute(sql`update messages set lease_until = now() - interval '1 second' where id = ${messageId}`);
    expect(await relayOnce(engine, undefined)).toMatchObject({ checked: 1, requeued: 1 });
    expect((await engine.queue('default').getJob(messageId))?.id).toBe(messageId);
    const runtime = worlds.start(world, { pools: ['default'] });
    const view = await waitForRun(engine.db, runId, { timeoutMs: 30_000 });
    await runtime.close();
    await expectExactDone(engine.db, view.id);
    expect(view.output).toEqual({ text: 'held inline\n' });
  });
});
