import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { WORD_SPLIT, saveOrThrow, useWorlds } from '../../test/harness';
import { InputRejectedError, MeshInvalidError, RedisUnreachableError } from '../kernel/errors';
import { assertRedis } from '../kernel/engine';
import { sweepRuns } from '../runtime/sweep';
import { finalizeRuns } from '../process/run-end';
import { getRun } from './get-run';
import { listMessages } from './list-messages';
import { startRun } from './start-run';
import { waitForRun } from './wait-run';

const mesh = (members: unknown[], channels: unknown[] = []) => ({ format: 'trellis.mesh/v1', name: 'failing', members, channels });
// A model other than demo needs a provider to pass validation; this one's key secret is never stored.
const NO_KEY = { baseUrl: 'http://127.0.0.1:1/v1', apiKeySecret: 'TRELLIS_TEST_UNSET_MODEL_KEY' };

describe('failures', () => {
  const worlds = useWorlds();

  async function runOn(definition: unknown, input: Parameters<typeof startRun>[1]['input'], config = {}) {
    const world = await worlds.open(config);
    const meshId = await saveOrThrow(world, definition);
    worlds.start(world);
    const { runId } = await startRun(world.engine, { meshId, input });
    return { view: await waitForRun(world.engine.db, runId, { timeoutMs: 60_000 }), world };
  }

  it('refuses to start a mesh with no head with the head_missing finding, not a compile error', async () => {
    const world = await worlds.open();
    const meshId = await saveOrThrow(world, mesh([{ id: 'lonely', kind: 'workflow', steps: [{ type: 'pass' }] }]));
    const refusal = await startRun(world.engine, { meshId, input: { text: 'x' } }).catch((err: unknown) => err);
    expect(refusal).toBeInstanceOf(MeshInvalidError);
    expect((refusal as MeshInvalidError).findings.map((f) => f.code)).toContain('head_missing');
  });

  it('dead-letters a failing step and fails the run with step_code_failed', async () => {
    const def = mesh(
      [
        { id: 'head', kind: 'workflow', head: true, steps: [{ type: 'map', fields: { count: 'text' } }] },
        { id: 'cut', kind: 'workflow', label: 'Cut words', steps: [{ type: 'split', by: 'word', field: 'missing' }] },
      ],
      [{ from: 'head', to: 'cut' }],
    );
    const { view, world } = await runOn(def, { text: 'some words' }, { backoffMs: 50 });
    expect(view.status).toBe('failed');
    expect(view.cause).toBe('step_code_failed');
    expect(view.causeMember).toBe('cut');
    expect(view.causeMessage).toContain('Cut words');
    expect(view.counts.deadLettered).toBe(1);
    expect(view.counts.done).toBe(1);
    const dead = await listMessages(world.engine.db, { runId: view.id, status: 'dead' });
    expect(dead.items[0]?.error).toMatch(/field missing is missing/);
    // A throwing step is retried (TRELLIS_ATTEMPTS, 3 by default) before it is set aside.
    expect(dead.items[0]?.attempts).toBe(world.engine.config.attempts);
  });

  it('fails an agent without a usable model with agent_or_model_missing; the demo model answers', async () => {
    const def = mesh(
      [
        { id: 'ask', kind: 'agent', head: true, model: 'demo' },
        // Valid (it names a provider), but its key variable is unset, so it fails when it runs.
        { id: 'real', kind: 'agent', model: 'gpt-unavailable', provider: NO_KEY },
      ],
      [{ from: 'ask', to: 'real', when: "agent == 'ask'" }],
    );
    const { view, world } = await runOn(def, { payload: { question: 'hi' } });
    expect(view.cause).toBe('agent_or_model_missing');
    const done = await listMessages(world.engine.db, { runId: view.id, member: 'real' });
    expect(done.items[0]?.payload).toEqual({ question: 'hi', agent: 'ask' });
  });

  it('rejects invalid UTF-8 and NUL, recording a failed run with input_rejected', async () => {
    const world = await worlds.open();
    const meshId = await saveOrThrow(world, WORD_SPLIT);
    const bad = startRun(world.engine, { meshId, input: { bytes: new Uint8Array([0x61, 0x62, 0xc3, 0x28]) } });
    await expect(bad).rejects.toThrow(/not valid UTF-8 \(first bad byte at offset 2\)/);
    const err = await bad.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InputRejectedError);
    const run = await getRun(world.engine.db, (err as InputRejectedError).runId ?? '');
    expect(run).toMatchObject({ status: 'failed', cause: 'input_rejected' });
    expect(run?.counts.published).toBe(0);
    await expect(startRun(world.engine, { meshId, input: { text: 'a\u0000b' } })).rejects.toThrow(/NUL/);
  });

  it('fails a run that goes deeper than the depth limit with budget_spent', async () => {
    const { view } = await runOn(WORD_SPLIT, { text: 'a b\nc' }, { maxDepth: 3 });
    expect(view.status).toBe('failed');
    expect(view.cause).toBe('budget_spent');
    expect(view.causeMessage).toMatch(/deeper than 3/);
  });

  it('flags a run nobody works on as stalled', async () => {
    const world = await worlds.open({ stallAfterMs: 200, tickMs: 50 });
    const meshId = await saveOrThrow(world, WORD_SPLIT);
    const { runId } = await startRun(world.engine, { meshId, input: { text: 'x' } });
    // No worker: only the orchestrator's loop runs.
    const { startOrchestrator } = await import('../runtime/orchestrator');
    const orchestrator = startOrchestrator(world.engine);
    const view = await waitForRun(world.engine.db, runId, { timeoutMs: 10_000 });
    await orchestrator.close();
    expect(view).toMatchObject({ status: 'stalled', cause: 'stalled' });
  });

  it('says how to fix an unreachable Redis', async () => {
    const err = await assertRedis('redis://127.0.0.1:1', { timeoutMs: 1000, waitMs: 1000 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RedisUnreachableError);
    expect((err as Error).message).toMatch(/cannot reach Redis at redis:\/\/127\.0\.0\.1:1.*REDIS_URL.*redis-server/);
  });

  // A dead-letter fails its run in the same transaction, so a running run with a dead message only
  // exists if that ever breaks; the finalizer must still never call it done. The state is made by
  // hand on a run no worker touches, and the same run with the message done is the control.
  it('never counts a run done while a message is dead, from the finalizer or the sweep', async () => {
    const world = await worlds.open();
    const meshId = await saveOrThrow(world, mesh([{ id: 'head', kind: 'workflow', head: true, steps: [{ type: 'pass' }] }]));
    const { runId, messageId } = await startRun(world.engine, { meshId, input: { text: 'x' } });
    const db = world.engine.db;
    await db.execute(sql`update messages set status = 'dead', attempts = 1, finished_at = now() where id = ${messageId}`);
    expect(await finalizeRuns(world.engine, [runId])).toEqual([]);
    expect(await sweepRuns(world.engine)).toBe(0);
    expect((await getRun(db, runId))?.status).toBe('running');
    await db.execute(sql`update messages set status = 'done' where id = ${messageId}`);
    expect(await finalizeRuns(world.engine, [runId])).toEqual([runId]);
    expect((await getRun(db, runId))?.status).toBe('done');
  });
});
