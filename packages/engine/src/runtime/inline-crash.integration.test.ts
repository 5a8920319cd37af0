/**
 * A worker process killed (SIGKILL) mid-run while it holds inline messages: their rows stay leased
 * to it until the lease lapses, then the relay adds them as jobs with the same ids and another
 * worker finishes the run: exact output, every message delivered and done once, no join fired twice.
 */
import { sql } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import { WORD_SPLIT, exactness, expectExactDone, licensesText, pages, saveOrThrow, spawnWorker, stopWorkers, useWorlds, type WorkerProcess } from '../../test/harness';
import { rows } from '../kernel/sql';
import { startRun } from '../runs/start-run';
import { waitForRun } from '../runs/wait-run';
import { startOrchestrator, type RunningOrchestrator } from './orchestrator';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('inline lane across a worker crash', () => {
  const worlds = useWorlds();
  let workers: WorkerProcess[] = [];
  let orchestrator: RunningOrchestrator | undefined;
  afterEach(async () => {
    await stopWorkers(workers);
    workers = [];
    await orchestrator?.close();
    orchestrator = undefined;
  });

  it('kill -9 while holding inline work: the relay hands it on, the run ends exact with no duplicate joins', { timeout: 300_000 }, async () => {
    const world = await worlds.open({ tickMs: 200, relayAfterMs: 500 });
    const meshId = await saveOrThrow(world, WORD_SPLIT);
    const env = { TRELLIS_INLINE_LEASE_MS: '2000', TRELLIS_LOCK_DURATION_MS: '3000', TRELLIS_STALLED_INTERVAL_MS: '1000' };
    const first = await spawnWorker(world, env);
    workers = [first];
    const doc = pages(licensesText(), 6);
    const { runId } = await startRun(world.engine, { meshId, input: { bytes: doc } });
    const held = async () =>
      (
        await rows<{ n: number }>(
          world.engine.db,
          sql`select count(*)::int as n from messages
               where run_id = ${runId} and status = 'pending' and lease_owner like 'inline:%' and lease_until > now()`,
        )
      )[0]?.n ?? 0;
    // Kill it the moment it holds inline rows in the middle of the run.
    let leased = 0;
    for (let i = 0; i < 3000 && leased < 50; i++) {
      leased = await held();
      if (leased < 50) await sleep(5);
    }
    first.signal('SIGKILL');
    expect(await first.exited).toBe('SIGKILL');
    expect(leased).toBeGreaterThanOrEqual(50);
    // Rows it held stay leased to it (the lease may have lapsed already on a slow machine).
    const [orphans] = await rows<{ n: number }>(
      world.engine.db,
      sql`select count(*)::int as n from messages where run_id = ${runId} and status = 'pending' and lease_owner like 'inline:%'`,
    );
    expect(orphans?.n).toBeGreaterThan(0);

    workers.push(await spawnWorker(world, env));
    orchestrator = startOrchestrator(world.engine);
    const view = await waitForRun(world.engine.db, runId, { timeoutMs: 150_000 });
    await expectExactDone(world.engine.db, view.id);
    expect(Buffer.from((view.output as { text: string }).text, 'utf8').equals(doc)).toBe(true);
    const ex = await exactness(world.engine.db, runId);
    expect(ex).toMatchObject({ notDone: 0, duplicateJoins: 0, unfiredJoins: 0 });
    expect(ex.delivered).toBe(ex.published);
    // Every message counted once: a commit the kill cut short rolled back, so no message has two attempts.
    const [multi] = await rows<{ n: number }>(world.engine.db, sql`select count(*)::int as n from messages where run_id = ${runId} and attempts <> 1`);
    expect(multi?.n).toBe(0);
  });
});
