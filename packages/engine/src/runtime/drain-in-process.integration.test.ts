/**
 * A worker closed with a drain deadline, in this process, on either bus: until the deadline it
 * keeps its long step running; at the deadline it stops the step and releases the message
 * uncounted (on BullMQ its job back to wait, on the in-process bus its claim released), and the
 * next worker finishes it with the same idempotency key. The process-level drain (SIGTERM,
 * TRELLIS_DRAIN_MS) is runtime/drain.integration.test.ts.
 */
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { allowInternal, expectExactDone, saveOrThrow, useWorlds } from '../../test/harness';
import { oneCallMesh, startRecorder } from '../../test/recorder';
import { rows } from '../kernel/sql';
import { startRun } from '../runs/start-run';
import { waitForRun } from '../runs/wait-run';
import { startOrchestrator } from './orchestrator';
import { startWorker } from './worker';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('a worker closing past its drain deadline', () => {
  const worlds = useWorlds();

  it('finishes nothing early, then hands the long step back uncounted; the next worker runs it', { timeout: 60_000 }, async () => {
    const world = await worlds.open({ tickMs: 200, relayAfterMs: 500 });
    const rec = await startRecorder();
    const orchestrator = startOrchestrator(world.engine);
    try {
      await allowInternal(world, rec.host);
      rec.on('/slow', { delayMs: 60_000 });
      const meshId = await saveOrThrow(world, oneCallMesh(rec, '/slow', 'long-step'));
      const { runId, messageId } = await startRun(world.engine, { meshId, input: { text: 'x' } });
      const message = async () =>
        (await rows<{ status: string; attempts: number; token: string | null }>(
          world.engine.db,
          sql`select status, attempts, lease_token as token from messages where id = ${messageId}`,
        ))[0];
      const first = startWorker(world.engine);
      await rec.waitFor(1, '/slow');
      rec.on('/slow', { delayMs: 0 });
      const deadline = new AbortController();
      let closed = false;
      const closing = first.close(deadline.signal).then(() => (closed = true));
      // Before the deadline the step keeps running under its lease.
      await sleep(500);
      expect(closed).toBe(false);
      expect(await message()).toMatchObject({ status: 'running', attempts: 1 });
      deadline.abort();
      await closing;
      expect(rec.seen[0]?.abortedAt).toBeDefined();
      expect(await message()).toEqual({ status: 'pending', attempts: 0, token: null });

      const second = startWorker(world.engine);
      try {
        const view = await waitForRun(world.engine.db, runId, { timeoutMs: 20_000 });
        await expectExactDone(world.engine.db, view.id);
      } finally {
        await second.close();
      }
      expect(await message()).toMatchObject({ status: 'done', attempts: 1 });
      expect(rec.seen.map((s) => s.key)).toEqual([messageId, messageId]);
    } finally {
      await orchestrator.close();
      await rec.close();
    }
  });
});
