/**
 * A worker process started with TRELLIS_HEALTH_PORT and TRELLIS_LOG_FORMAT=json (workers/worker):
 * its health server answers, its /metrics counts the messages it completed, and its stderr is one
 * JSON object per line.
 */
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { sql } from 'drizzle-orm';
import { WORD_SPLIT, saveOrThrow, spawnWorker, stopWorkers, useWorlds } from '../../test/harness';
import { rows } from '../kernel/sql';
import { msgStatus } from '../kernel/statuses';
import { startRun } from '../runs/start-run';
import { waitForRun } from '../runs/wait-run';

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return typeof address === 'object' && address ? address.port : 0;
}

const worlds = useWorlds();

describe('a worker process with its health server', () => {
  it('serves /readyz and /metrics counting its steps, and logs JSON lines', async () => {
    const world = await worlds.open();
    const meshId = await saveOrThrow(world, WORD_SPLIT);
    const port = await freePort();
    const worker = await spawnWorker(world, { TRELLIS_HEALTH_PORT: String(port), TRELLIS_HEALTH_HOST: '127.0.0.1', TRELLIS_LOG_FORMAT: 'json', TRELLIS_VERBOSE: '1' });
    try {
      const base = `http://127.0.0.1:${port}`;
      expect((await fetch(`${base}/livez`)).status).toBe(200);
      expect((await fetch(`${base}/readyz`)).status).toBe(200);
      const { runId } = await startRun(world.engine, { meshId, input: { bytes: new TextEncoder().encode('one two\nthree') } });
      expect((await waitForRun(world.engine.db, runId, { timeoutMs: 30_000 })).status).toBe('done');
      const [done] = await rows(world.engine.db, sql`select count(*) as n from messages where run_id = ${runId} and status = ${msgStatus('done')}`, z.object({ n: z.coerce.number() }));
      const text = await (await fetch(`${base}/metrics`)).text();
      // The worker process completed every message of the run; this test process published only the head.
      expect(text).toContain(`trellis_messages_total{state="done"} ${done?.n}`);
      expect(text).toContain(`trellis_messages_total{state="published"} ${(done?.n ?? 0) - 1}`);
      const lines = worker.stderr().trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(lines.every((l) => l.service === 'trellis-worker' && typeof l.time === 'number')).toBe(true);
      expect(lines.map((l) => l.msg)).toEqual(expect.arrayContaining(['health server listening', 'worker started']));
      worker.signal('SIGTERM');
      expect(await worker.exited).toBe(0);
    } finally {
      await stopWorkers([worker]);
    }
  });
});
