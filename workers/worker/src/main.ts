/**
 * A worker process for one or more pools (`--pool agents`, TRELLIS_POOLS=default,agents or `*` for
 * every pool saved meshes name; default `default`) on Postgres (DATABASE_URL) and Redis
 * (REDIS_URL). Drains on SIGTERM or SIGINT: claims nothing more, finishes the jobs in hand within
 * TRELLIS_DRAIN_MS and hands back the rest (docs/operations.md), then disconnects.
 */
import { processLogger } from '@trellis/engine/log';
import { describeError } from '@trellis/engine/errors';
import { boot, closeOnSignal } from '@trellis/engine/runtime/boot';
import { observeProcess } from '@trellis/engine/runtime/observe';
import { servePools } from '@trellis/engine/runtime/pools';
import { loadWorkerEnv } from './env';

try {
  const env = loadWorkerEnv();
  if (!env.databaseUrl) throw new Error('set DATABASE_URL: a worker process shares Postgres with the others');
  const log = processLogger(env.logFormat, env.verbose, { service: 'trellis-worker' });
  const booted = await boot(env, { log });
  const observed = await observeProcess(booted.engine, env, 'trellis-worker');
  const workers = servePools(booted.engine, env.pools, { concurrency: env.concurrency });
  log.warn('worker started', { pools: env.pools === 'saved' ? '* (every saved pool)' : env.pools.join(','), concurrency: env.concurrency });
  closeOnSignal(
    async (deadline) => {
      await workers.close(deadline);
      await observed.close();
      await booted.close();
    },
    log,
    { drainMs: env.drainMs },
  );
} catch (err) {
  const view = describeError(err);
  process.stderr.write(`trellis worker: ${view.code === 'internal' && err instanceof Error ? err.message : view.message}\n`);
  process.exit(2);
}
