import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { WORD_SPLIT, saveOrThrow, useWorlds } from '../../test/harness';
import { processBatch } from '../process/batch';
import { getRun } from '../runs/get-run';
import { startRun } from '../runs/start-run';
import { waitForRun } from '../runs/wait-run';
import { startInProcess } from './in-process';
import { relayOnce } from './relay';
import { rows } from '../kernel/sql';

describe('outbox relay and redelivery', () => {
  const worlds = useWorlds();

  it('re-adds a job Redis lost, with the same id, and the run then completes', async () => {
    const world = await worlds.open({ relayAfterMs: 0 });
    const { engine } = world;
    const meshId = await saveOrThrow(world, WORD_SPLIT);
    const { runId, messageId } = await startRun(engine, { meshId, input: { text: 'lost and found\n' } });
    await engine.queue('default').remove(messageId);
    expect(await engine.queue('default').getJob(messageId)).toBeUndefined();
    const report = await relayOnce(engine, undefined);
    expect(report).toMatchObject({ checked: 1, requeued: 1, lost: 0 });
    expect((await engine.queue('default').getJob(messageId))?.id).toBe(messageId);
    // A second pass finds the job there and leaves it alone.
    expect((await relayOnce(engine, undefined)).requeued).toBe(0);
    const runtime = startInProcess(engine);
    const view = await waitForRun(engine.db, runId, { timeoutMs: 30_000 });
    await runtime.close();
    expect(view.status).toBe('done');
    expect(view.output).toEqual({ text: 'lost and found\n' });
  });

  it('declares a message lost after too many re-adds and fails the run with message_lost', async () => {
    const world = await worlds.open({ relayAfterMs: 0, maxRequeues: 2 });
    const { engine } = world;
    const meshId = await saveOrThrow(world, WORD_SPLIT);
    const { runId, messageId } = await startRun(engine, { meshId, input: { text: 'gone' } });
    for (let i = 0; i < 2; i++) {
      await engine.queue('default').remove(messageId);
      expect((await relayOnce(engine, undefined)).requeued).toBe(1);
    }
    // The step had failed once before its job went missing: that error must survive the loss.
    await engine.db.execute(sql`update messages set error = 'the step threw: boom' where id = ${messageId}`);
    await engine.queue('default').remove(messageId);
    expect((await relayOnce(engine, undefined)).lost).toBe(1);
    const view = await getRun(engine.db, runId);
    expect(view).toMatchObject({ status: 'failed', cause: 'message_lost', causeMember: 'pages' });
    expect(view?.counts.lost).toBe(1);
    expect(view?.causeMessage).toContain('its last error: the step threw: boom');
    const [row] = await rows<{ error: string }>(engine.db, sql`select error from messages where id = ${messageId}`);
    expect(row?.error).toBe('its job kept disappearing from the queue (re-added 2 times); its last error: the step threw: boom');
  });

  it('cancels the open messages of a failed run instead of re-adding or losing them', async () => {
    const world = await worlds.open({ relayAfterMs: 0, maxRequeues: 0 });
    const { engine } = world;
    const meshId = await saveOrThrow(world, WORD_SPLIT);
    const { runId, messageId } = await startRun(engine, { meshId, input: { text: 'stopped' } });
    await engine.db.execute(sql`update runs set status = 'failed', cause = 'step_code_failed' where id = ${runId}`);
    await engine.queue('default').remove(messageId);
    const report = await relayOnce(engine, undefined);
    expect(report).toMatchObject({ checked: 0, requeued: 0, lost: 0 });
    expect(await engine.queue('default').getJob(messageId)).toBeUndefined();
    const view = await getRun(engine.db, runId);
    expect(view).toMatchObject({ status: 'failed', cause: 'step_code_failed' });
    expect(view?.counts).toMatchObject({ lost: 0, cancelled: 1, pending: 0 });
  });

  it('acknowledges a redelivered message without doing its work twice', async () => {
    const world = await worlds.open();
    const { engine } = world;
    const meshId = await saveOrThrow(world, WORD_SPLIT);
    const { runId, messageId } = await startRun(engine, { meshId, input: { text: 'one two\nthree' } });
    const delivery = { messageId, runId, member: 'pages' };
    // The same message twice in one batch, then again after it is done (a redelivery after a crash).
    const first = await processBatch(engine, [delivery, delivery]);
    expect(first.get(messageId)).toEqual({ kind: 'ack' });
    const count = async () => (await getRun(engine.db, runId))?.counts;
    const after = await count();
    expect(after).toMatchObject({ published: 2, done: 1, pending: 1, delivered: 1 });
    await processBatch(engine, [delivery]);
    expect(await count()).toEqual(after);
  });
});
