import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { licensesText, PG_ADMIN_URL, WORD_SPLIT, saveOrThrow, useWorlds, expectExactDone } from '../../test/harness';
import { until } from '../../test/recorder';
import { startRun } from './start-run';
import { waitForRun } from './wait-run';

const BLINKS = 3;

/** The run at the moment of a blink, read just before its connections are cut. */
interface Snapshot {
  status: string;
  done: number;
  open: number;
}

describe('a database blink mid-run', () => {
  const worlds = useWorlds();

  it('is retried in place on fresh connections and the run still ends done, exactly', { timeout: 240_000 }, async () => {
    const world = await worlds.open();
    const meshId = await saveOrThrow(world, WORD_SPLIT);
    const runtime = worlds.start(world, { pools: ['default'], concurrency: 200 });
    const url = new URL(PG_ADMIN_URL);
    url.pathname = `/${world.databaseName ?? ''}`;
    // The observer reads the run's state; the admin cuts every other connection to the database.
    const observer = new pg.Client({ connectionString: url.toString() });
    const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
    await observer.connect();
    await admin.connect();
    const observerPid = ((await observer.query('select pg_backend_pid() as pid')).rows[0] as { pid: number }).pid;
    try {
      const { runId } = await startRun(world.engine, { meshId, input: { bytes: licensesText() } });
      const snapshot = async (): Promise<Snapshot> =>
        (
          await observer.query(
            `select r.status, count(*) filter (where m.status = 'done')::int as done,
                    count(*) filter (where m.status in ('pending', 'running'))::int as open
               from runs r left join messages m on m.run_id = r.id where r.id = $1 group by r.status`,
            [runId],
          )
        ).rows[0] as Snapshot;
      const at: Snapshot[] = [];
      let busy = 0;
      let doneBefore = 0;
      for (let i = 0; i < BLINKS; i++) {
        // Event-driven: blink once the run has moved since the last blink and an engine connection
        // is in the middle of a query or transaction (not merely idle in the pool).
        await until(async () => ((await snapshot()).done > doneBefore ? true : undefined), `progress before blink ${i + 1}`, 60_000, 10);
        await until(
          async () => {
            const r = await admin.query(`select count(*)::int as n from pg_stat_activity where datname = $1 and pid <> $2 and state <> 'idle'`, [
              world.databaseName,
              observerPid,
            ]);
            return (r.rows[0] as { n: number }).n > 0 ? true : undefined;
          },
          `a busy engine connection before blink ${i + 1}`,
          60_000,
          2,
        );
        const state = await snapshot();
        at.push(state);
        doneBefore = state.done;
        const res = await admin.query(
          `select count(*) filter (where state <> 'idle')::int as busy, count(pg_terminate_backend(pid))::int as killed
             from pg_stat_activity where datname = $1 and pid <> pg_backend_pid() and pid <> $2`,
          [world.databaseName, observerPid],
        );
        busy += (res.rows[0] as { busy: number }).busy;
      }
      // Every blink hit a run still going, with work still open, and cut at least one busy connection.
      for (const s of at) expect(s).toMatchObject({ status: 'running', open: expect.any(Number) as number });
      for (const s of at) expect(s.open).toBeGreaterThan(0);
      expect(busy).toBeGreaterThan(0);
      // Watched from the observer's own connection: a pooled connection of this process may be one
      // the last blink cut, and the first query on it fails.
      await until(async () => ((await snapshot()).status === 'running' ? undefined : true), 'the run to end', 180_000, 100);
      const view = await waitForRun(world.engine.db, runId, { timeoutMs: 10_000 });
      await expectExactDone(world.engine.db, view.id);
      // The run went on after the last blink.
      expect(view.counts.done).toBeGreaterThan(at.at(-1)?.done ?? Infinity);
      expect(Buffer.from((view.output as { text: string }).text, 'utf8').equals(licensesText())).toBe(true);
      expect(view.counts.done).toBe(view.counts.published);
    } finally {
      await observer.end();
      await admin.end();
      await runtime.close();
    }
  });
});
