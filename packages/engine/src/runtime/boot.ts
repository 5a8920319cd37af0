/** Opening the database and the engine from settings: shared by the CLI and the worker processes. */
import { openDb, type DbHandle } from '@trellis/db/client';
import type { EngineEnv } from '../kernel/env';
import type { Logger } from '../kernel/log';
import { loadSecretsKey } from '../policy/secret-key';
import { agentRunner } from './agent-runner';
import { connectEngine, warnOnRedisDurability, type Engine } from '../kernel/engine';
import { bindQueuePrefix } from './install';

/** An open database and engine, closed together. */
export interface Booted {
  handle: DbHandle;
  engine: Engine;
  close(): Promise<void>;
}

/**
 * Opens the database (Postgres at DATABASE_URL, or the embedded one), applies migrations,
 * checks Redis and creates the engine.
 * @throws DatabaseUnreachableError or RedisUnreachableError, each naming its setting;
 *   QueuePrefixTakenError when another install's database owns the queue prefix.
 */
export async function boot(env: EngineEnv, options: { log?: Logger } = {}): Promise<Booted> {
  const handle = await openDb({ url: env.databaseUrl, dataDir: env.dataDir });
  try {
    await handle.migrate();
    const engine = await connectEngine({
      db: handle.db,
      redisUrl: env.redisUrl,
      bus: env.bus,
      prefix: env.queuePrefix,
      maxDepth: env.maxDepth,
      attempts: env.attempts,
      stallAfterMs: env.stallAfterMs,
      lockDurationMs: env.lockDurationMs,
      stalledIntervalMs: env.stalledIntervalMs,
      maxStalledCount: env.maxStalledCount,
      leaseMs: env.leaseMs,
      inlineMax: env.inlineMax,
      inlineLeaseMs: env.inlineLeaseMs,
      reservedShare: env.reservedShare,
      crashAfterCommit: env.crashAfterCommit,
      retentionDays: env.retentionDays,
      deadRetentionDays: env.deadRetentionDays,
      // The embedded database runs one statement at a time; more batches in flight only queue.
      // On Postgres two batches overlap one's Redis work with the other's transaction; more mostly
      // wait on each other's join rows (measured in docs/benchmarks.md).
      batchesInFlight: handle.kind === 'pglite' ? 1 : 2,
      // PGlite has no autovacuum: without this, dead row versions pile up and plans go stale.
      vacuumEveryMs: handle.kind === 'pglite' ? 10 * 60_000 : 0,
      analyzeEveryMs: handle.kind === 'pglite' ? 60_000 : 0,
      runAgent: agentRunner(undefined, { db: handle.db }),
      security: {
        secretsKey: loadSecretsKey(env.secretsKeyText, env.secretsKeyFile),
        egressDefault: env.egressDefault,
        sandboxRoot: env.sandboxRoot,
        sandboxUser: env.sandboxUser,
      },
      ...(options.log ? { log: options.log } : {}),
    });
    if (env.bus === 'redis') await warnOnRedisDurability(engine);
    // A prefix belongs to one database: refuse to work another install's queues.
    await bindQueuePrefix(engine, { takeOver: handle.kind === 'pglite' && !env.queuePrefixSet });
    return {
      handle,
      engine,
      async close() {
        await engine.close();
        await handle.close();
      },
    };
  } catch (err) {
    await handle.close().catch(() => undefined);
    throw err;
  }
}

/** Calls `stop` once on SIGTERM or SIGINT, then exits with 0 (or 1 if stopping failed). */
export function closeOnSignal(stop: () => Promise<void>, log: Logger): void {
  let stopping = false;
  const onSignal = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info('stopping', { signal });
    stop().then(
      () => process.exit(0),
      (err: unknown) => {
        log.error('stopping failed', { error: err instanceof Error ? err.message : String(err) });
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => onSignal('SIGTERM'));
  process.once('SIGINT', () => onSignal('SIGINT'));
}
