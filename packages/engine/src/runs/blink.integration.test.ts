import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { licensesText, PG_ADMIN_URL, WORD_SPLIT, saveOrThrow, useWorlds } from '../../test/harness';
import { startRun } from './start-run';
import { waitForRun } from './wait-run';

describe('a database blink mid-run', () => {
  const worlds = useWorlds();

  it('is retried in place on fresh connections and the run still ends done, exactly', async () => {
    const world = await worlds.open();
    const meshId = await saveOrThrow(world, WORD_SPLIT);
    const runtime = worlds.start(world, { pools: ['default'], concurrency: 200 });
    try {
      const { runId } = await startRun(world.engine, { meshId, input: { bytes: licensesText() } });
      const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
      await admin.connect();
      let killed = 0;
      for (let i = 0; i < 3; i++) {
        await new Promise((r) => setTimeout(r, 1500));
        const res = await admin.query(
          'select count(pg_terminate_backend(pid))::int as n from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()',
          [world.databaseName],
        );
        killed += (res.rows[0] as { n: number }).n;
      }
      await admin.end();
      expect(killed).toBeGreaterThan(0);
      const view = await waitForRun(world.engine.db, runId, { timeoutMs: 90_000 });
      expect(view.status).toBe('done');
      expect(Buffer.from((view.output as { text: string }).text, 'utf8').equals(licensesText())).toBe(true);
      expect(view.counts.done).toBe(view.counts.published);
    } finally {
      await runtime.close();
    }
  });
});
