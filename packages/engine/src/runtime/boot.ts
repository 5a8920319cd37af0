/** Opening the database and the engine from settings: shared by the CLI and the worker processes. */
import { openDb, type DbHandle } from '@trellis/db/client';
import { DRAIN_GRACE_MS, type EngineEnv } from '../kernel/env';
import type { Logger } from '../kernel/log';
import { loadSecretsKey } from '../policy/secret-key';
import { agentRunner } from './agent-runner';
import { connectEngine, warnOnRedisDurability, type Engine } from '../kernel/engine';
import { bindQueuePrefix } from './install';
import { markDraining } from './drain';

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
      // The embedded database is opened by one process only: its orchestrator is the only one.
      leaderLeaseMs: handle.kind === 'pglite' ? 0 : env.leaderLeaseMs,
      retentionDays: env.retentionDays,
      deadRetentionDays: env.deadRetentionDays,
      capacityWaitSeconds: env.capacityWaitSeconds,
      maxRunsPerUser: env.maxRunsPerUser,
      maxRunsPerMesh: env.maxRunsPerMesh,
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

/** Options for {@link closeOnSignal}. */
export interface DrainOptions {
  /** How long the work in hand may take before it is handed back, ms (TRELLIS_DRAIN_MS; default 25 000). */
  drainMs?: number;
  /** After that, how long handing back may take before the process exits anyway, ms (default {@link DRAIN_GRACE_MS}). */
  graceMs?: number;
}

/**
 * A second stop signal this soon after the first (ms) is taken as the same stop, not as "asked
 * again": Ctrl-C reaches every process of the terminal's process group, and a parent such as
 * `npm start` or a supervisor may pass a signal on as well, so one stop can arrive twice.
 */
export const REPEAT_SIGNAL_MS = 1000;

/**
 * Drains on SIGTERM or SIGINT: marks the process draining (runtime/drain.ts; readiness turns
 * false), calls `stop` once with a deadline signal that aborts `drainMs` later, then exits with 0
 * (or 1 if stopping failed). `stop` stops claiming, waits for the work in hand and, when the
 * deadline aborts, hands back what is still running (runtime/worker.ts `close`). A process still
 * not stopped `graceMs` after the deadline exits with 1 anyway: leases and locks it still holds
 * then lapse and other workers take the work over as after a crash. A second signal exits at once (1)
 * unless it comes within {@link REPEAT_SIGNAL_MS} of the first: then it is the same stop, logged and ignored.
 */
export function closeOnSignal(stop: (deadline: AbortSignal) => Promise<void>, log: Logger, options: DrainOptions = {}): void {
  const drainMs = options.drainMs ?? 25_000;
  const graceMs = options.graceMs ?? DRAIN_GRACE_MS;
  let stoppedAt: number | undefined;
  const onSignal = (signal: string) => {
    if (stoppedAt !== undefined) {
      if (performance.now() - stoppedAt < REPEAT_SIGNAL_MS) {
        log.info('already draining: a repeated stop signal is the same stop', { signal, withinMs: REPEAT_SIGNAL_MS });
        return;
      }
      log.warn('asked again to stop: exiting without draining', { signal });
      process.exit(1);
    }
    stoppedAt = performance.now();
    markDraining(signal);
    log.warn('draining', { signal, drainMs });
    const deadline = new AbortController();
    const handBack = setTimeout(() => deadline.abort(new Error(`the drain deadline of ${drainMs} ms passed`)), drainMs);
    const hardExit = setTimeout(() => {
      log.error('drain did not finish in time; exiting', { drainMs, graceMs });
      process.exit(1);
    }, drainMs + graceMs);
    handBack.unref();
    hardExit.unref();
    stop(deadline.signal).then(
      () => {
        log.info('drained', { signal });
        process.exit(0);
      },
      (err: unknown) => {
        log.error('stopping failed', { error: err instanceof Error ? err.message : String(err) });
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => onSignal('SIGTERM'));
  process.on('SIGINT', () => onSignal('SIGINT'));
}
