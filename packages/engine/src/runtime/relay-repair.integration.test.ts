import { sql } from 'drizzle-orm';
import { causeSentence } from '@trellis/mesh/causes';
import { describe, expect, it } from 'vitest';
import { WORD_SPLIT, saveOrThrow, useWorlds } from '../../test/harness';
import { getRun } from '../runs/get-run';
import { startRun } from '../runs/start-run';
import { relayOnce, stalledOut } from './relay';
import { rows } from '../kernel/sql';
import { jobKey, queueName } from '../kernel/queues';

// The relay's less travelled paths: jobs BullMQ gave up on, the age limit, paging, and a loss with
// no earlier error (runtime/relay.integration.test.ts has the re-add and loss basics).
describe('outbox relay repairs', () => {
  const worlds = useWorlds();

  it('says how often the worker died, in the singular once', () => {
    expect(stalledOut(1)).toBe('the worker handling it died 1 time (its job was given up after 1 lost locks)');
    expect(stalledOut(3)).toBe('the worker handling it died 3 times (its job was given up after 3 lost locks)');
    // No stalled counter on the job: BullMQ's default of two lapses.
    expect(stalledOut(0)).toBe('the worker handling it died 2 times (its job was given up after 2 lost locks)');
  });

  it('dead-letters the messages whose job BullMQ failed, naming the stalls, and leaves the others', async () => {
    const world = await worlds.open({ relayAfterMs: 0 });
    const { engine, prefix } = world;
    const meshId = await saveOrThrow(world, WORD_SPLIT);
    const started = [];
    for (const text of ['one', 'two', 'three']) started.push(await startRun(engine, { meshId, input: { text } }));
    // The counted one last: its stalled counter is the page's last answer, where an index slip shows.
    const [healthy, stalledUncounted, stalledThrice] = started;
    if (!healthy || !stalledThrice || !stalledUncounted) throw new Error('three runs expected');
    // BullMQ gave up on two jobs: they sit in the queue's failed set, one with a stalled counter of 3.
    const failed = `${prefix}:${queueName('default')}:failed`;
    await engine.redis.zadd(failed, Date.now(), stalledThrice.messageId);
    await engine.redis.hset(jobKey(prefix, 'default', stalledThrice.messageId), 'stc', '3');
    await engine.redis.zadd(failed, Date.now(), stalledUncounted.messageId);

    const report = await relayOnce(engine, undefined);
    expect(report).toEqual({ checked: 3, requeued: 0, lost: 0, dead: 2, next: undefined });
    const status = async (id: string) => (await rows<{ status: string; error: string | null }>(engine.db, sql`select status, error from messages where id = ${id}`))[0];
    expect(await status(healthy.messageId)).toEqual({ status: 'pending', error: null });
    expect(await status(stalledThrice.messageId)).toEqual({ status: 'dead', error: stalledOut(3) });
    expect(await status(stalledUncounted.messageId)).toEqual({ status: 'dead', error: stalledOut(2) });
    expect(await getRun(engine.db, stalledThrice.runId)).toMatchObject({ status: 'failed', cause: 'step_code_failed' });
    expect((await getRun(engine.db, healthy.runId))?.status).toBe('running');
    // Dead messages are no longer open: a second pass looks only at the healthy one.
    expect(await relayOnce(engine, undefined)).toEqual({ checked: 1, requeued: 0, lost: 0, dead: 0, next: undefined });
  });

  it('leaves messages younger than relayAfterMs alone and looks at them once they are older', async () => {
    const world = await worlds.open({ relayAfterMs: 1000 });
    const { engine } = world;
    const meshId = await saveOrThrow(world, WORD_SPLIT);
    const { messageId } = await startRun(engine, { meshId, input: { text: 'young' } });
    await engine.queue('default').remove(messageId);
    // Backdate instead of sleeping: 0.5 s old is too young, 5 s old is due.
    await engine.db.execute(sql`update messages set created_at = now() - interval '500 milliseconds' where id = ${messageId}`);
    expect(await relayOnce(engine, undefined)).toMatchObject({ checked: 0, requeued: 0 });
    await engine.db.execute(sql`update messages set created_at = now() - interval '5 seconds' where id = ${messageId}`);
    expect(await relayOnce(engine, undefined)).toMatchObject({ checked: 1, requeued: 1 });
    expect((await engine.queue('default').getJob(messageId))?.id).toBe(messageId);
  });

  it('walks open messages a page of 2000 at a time and resumes after the cursor', async () => {
    const world = await worlds.open({ relayAfterMs: 0 });
    const { engine } = world;
    const meshId = await saveOrThrow(world, WORD_SPLIT);
    const { runId, messageId } = await startRun(engine, { meshId, input: { text: 'many' } });
    // 2,000 more open rows of the same run, older than the first, none with a job in Redis.
    await engine.db.execute(
      sql`insert into messages (id, run_id, member, pool, payload, created_at)
          select ${messageId} || '-' || g, run_id, member, pool, payload, created_at - (2001 - g) * interval '1 millisecond'
            from messages, generate_series(1, 2000) g where id = ${messageId}`,
    );
    const first = await relayOnce(engine, undefined);
    expect(first).toMatchObject({ checked: 2000, requeued: 2000, next: { id: `${messageId}-2000` } });
    const second = await relayOnce(engine, first.next);
    // Only the newest row is left after the cursor, and its job is there.
    expect(second).toEqual({ checked: 1, requeued: 0, lost: 0, dead: 0, next: undefined });
    expect((await getRun(engine.db, runId))?.status).toBe('running');
  });

  it('declares a message with no earlier error lost with the plain sentence, re-adding nothing', async () => {
    const world = await worlds.open({ relayAfterMs: 0, maxRequeues: 1 });
    const { engine } = world;
    const meshId = await saveOrThrow(world, WORD_SPLIT);
    const { runId, messageId } = await startRun(engine, { meshId, input: { text: 'gone' } });
    await engine.queue('default').remove(messageId);
    expect(await relayOnce(engine, undefined)).toMatchObject({ checked: 1, requeued: 1, lost: 0 });
    await engine.queue('default').remove(messageId);
    expect(await relayOnce(engine, undefined)).toEqual({ checked: 1, requeued: 0, lost: 1, dead: 0, next: undefined });
    expect(await engine.queue('default').getJob(messageId)).toBeUndefined();
    const view = await getRun(engine.db, runId);
    expect(view?.status).toBe('failed');
    expect(view?.causeMessage).toBe(causeSentence({ cause: 'message_lost', member: 'pages', detail: 'a message vanished from the queue 1 times and was given up' }));
    // The run has ended: nothing is open, so a further pass finds nothing.
    expect(await relayOnce(engine, undefined)).toEqual({ checked: 0, requeued: 0, lost: 0, dead: 0, next: undefined });
  });
});
