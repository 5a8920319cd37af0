/**
 * A worker process for one pool (TRELLIS_POOL, default `default`) on Postgres (DATABASE_URL) and
 * Redis (REDIS_URL). Stops gracefully on SIGTERM: jobs in hand finish, then it disconnects.
 */
import { stderrLogger } from '@trellis/engine/log';
import { describeError } from '@trellis/engine/errors';
import { boot, closeOnSignal } from '@trellis/engine/runtime/boot';
import { startWorker } from '@trellis/engine/runtime/worker';
import { loadWorkerEnv } from './env';

try {
  const env = loadWorkerEnv();
  if (!env.databaseUrl) throw new Error('set DATABASE_URL: a worker process shares Postgres with the others');
  const log = stderrLogger(env.verbose);
  const booted = await boot(env, { log });
  const worker = startWorker(booted.engine, { pool: env.pool, concurrency: env.concurrency });
  log.warn('worker started', { pool: env.pool, concurrency: env.concurrency });
  closeOnSignal(async () => {
    await worker.close();
    await booted.close();
  }, log);
} catch (err) {
  const view = describeError(err);
  process.stderr.write(`trellis worker: ${view.code === 'internal' && err instanceof Error ? err.message : view.message}\n`);
  process.exit(2);
}
