/**
 * The orchestrator process on Postgres (DATABASE_URL) and Redis (REDIS_URL): outbox relay,
 * finalizer sweep, stall detector, schedules and event pump. Several may run: one leads under the
 * lease (engine runtime/leader.ts), the others stand by ready to take over. Stops on SIGTERM,
 * releasing the lease first so a standby takes over at once.
 */
import { processLogger } from '@trellis/engine/log';
import { describeError } from '@trellis/engine/errors';
import { boot, closeOnSignal } from '@trellis/engine/runtime/boot';
import { observeProcess } from '@trellis/engine/runtime/observe';
import { startOrchestrator } from '@trellis/engine/runtime/orchestrator';
import { loadOrchestratorEnv } from './env';

try {
  const env = loadOrchestratorEnv();
  if (!env.databaseUrl) throw new Error('set DATABASE_URL: the orchestrator shares Postgres with the workers');
  const log = processLogger(env.logFormat, env.verbose, { service: 'trellis-orchestrator' });
  const booted = await boot(env, { log });
  const observed = await observeProcess(booted.engine, env, 'trellis-orchestrator');
  const orchestrator = startOrchestrator(booted.engine);
  log.warn('orchestrator started');
  closeOnSignal(
    async () => {
      await orchestrator.close();
      await observed.close();
      await booted.close();
    },
    log,
    { drainMs: env.drainMs },
  );
} catch (err) {
  const view = describeError(err);
  process.stderr.write(`trellis orchestrator: ${view.code === 'internal' && err instanceof Error ? err.message : view.message}\n`);
  process.exit(2);
}
