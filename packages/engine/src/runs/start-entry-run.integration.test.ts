import { describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { auditLog } from '@trellis/db/schema/audit-log';
import { runEntries } from '@trellis/db/schema/run-entries';
import { runs } from '@trellis/db/schema/runs';
import { describeError, InputRejectedError } from '../kernel/errors';
import { expectExactDone, saveOrThrow, useWorlds, WORD_SPLIT } from '../../test/harness';
import { IdempotencyConflictError, startEntryRun, type EntryRunRequest } from './start-entry-run';
import { waitForAnswer } from './wait-answer';

const ACTOR = { id: null, email: null };

describe('the entry use case every entry point calls', () => {
  const worlds = useWorlds();

  it('starts a run with its audit entry and entry row, and answers with it for the same key, even when asked at once', async () => {
    const world = await worlds.open();
    const meshId = await saveOrThrow(world, JSON.parse(WORD_SPLIT) as unknown);
    const runtime = worlds.start(world, { pools: ['default'], concurrency: 4 });
    const request: EntryRunRequest = { mesh: { id: meshId }, input: { text: 'alpha beta' }, idempotencyKey: 'k-1', entry: 'rest', actor: ACTOR, via: 'test' };
    const first = await startEntryRun(world.engine, request);
    expect(first).toMatchObject({ status: 'running', reused: false });
    const answer = await waitForAnswer(world.engine.db, first.runId, { timeoutMs: 20_000 });
    expect(answer).toMatchObject({ runId: first.runId, status: 'done', ended: true, cause: null, output: { text: 'alpha beta' } });
    expect(answer.counts.done).toBe(answer.counts.published);
    await expectExactDone(world.engine.db, first.runId);
    // The same key again: the same run, now done; nothing new started.
    expect(await startEntryRun(world.engine, request)).toEqual({ runId: first.runId, status: 'done', reused: true });
    // By name instead of id is the same request.
    expect((await startEntryRun(world.engine, { ...request, mesh: { name: 'word-split' } })).runId).toBe(first.runId);

    // Ten requests with one new key at once: one run.
    const burst = await Promise.all(Array.from({ length: 10 }, () => startEntryRun(world.engine, { ...request, idempotencyKey: 'k-burst' })));
    expect(new Set(burst.map((a) => a.runId)).size).toBe(1);
    expect(burst.filter((a) => !a.reused)).toHaveLength(1);
    expect(await world.engine.db.select().from(runs)).toHaveLength(2);

    const [audit] = await world.engine.db.select().from(auditLog).where(eq(auditLog.target, first.runId));
    expect(audit).toMatchObject({ action: 'run.start', detail: { entry: 'rest', meshId, meshName: 'word-split', via: 'test', idempotencyKey: 'k-1' } });
    expect(await world.engine.db.select().from(auditLog).where(eq(auditLog.action, 'run.start'))).toHaveLength(2);
    expect(await world.engine.db.select().from(runEntries).where(eq(runEntries.runId, first.runId))).toMatchObject([{ entry: 'rest', idempotencyKey: 'k-1' }]);
    await runtime.close();
  });

  it('refuses a key reused for another request, and refuses bad input with the same error shape and a recorded failure', async () => {
    const world = await worlds.open();
    const meshId = await saveOrThrow(world, JSON.parse(WORD_SPLIT) as unknown);
    const first = await startEntryRun(world.engine, { mesh: { id: meshId }, input: { text: 'one' }, idempotencyKey: 'k', entry: 'schedule', actor: ACTOR });
    const other = startEntryRun(world.engine, { mesh: { id: meshId }, input: { text: 'two' }, idempotencyKey: 'k', entry: 'schedule', actor: ACTOR });
    await expect(other).rejects.toBeInstanceOf(IdempotencyConflictError);
    await expect(other).rejects.toMatchObject({ runId: first.runId, httpStatus: 409 });

    const bad = await startEntryRun(world.engine, { mesh: { id: meshId }, input: { bytes: new Uint8Array([0x61, 0xff]) }, entry: 'webhook', actor: ACTOR }).catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(InputRejectedError);
    expect(describeError(bad)).toMatchObject({ code: 'input_rejected', status: 400, cause: 'input_rejected' });
    const rejectedRun = (bad as InputRejectedError).runId ?? '';
    expect((await waitForAnswer(world.engine.db, rejectedRun, { timeoutMs: 0 })).cause).toBe('input_rejected');
    const [refused] = await world.engine.db.select().from(auditLog).where(eq(auditLog.action, 'run.refused'));
    expect(refused).toMatchObject({ target: rejectedRun, detail: { entry: 'webhook', cause: 'input_rejected' } });

    await expect(startEntryRun(world.engine, { mesh: { name: 'nope' }, input: { text: 'x' }, entry: 'rest', actor: ACTOR })).rejects.toMatchObject({ code: 'mesh_not_found' });
    await expect(startEntryRun(world.engine, { mesh: { id: meshId }, input: { text: 'x' }, idempotencyKey: '', entry: 'rest', actor: ACTOR })).rejects.toMatchObject({ code: 'bad_input' });
  });
});
