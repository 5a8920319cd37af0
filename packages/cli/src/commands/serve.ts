/** `trellis worker` and `trellis orchestrator`: long-running processes until SIGTERM/SIGINT. */
import { closeOnSignal } from '@trellis/engine/runtime/boot';
import { startOrchestrator } from '@trellis/engine/runtime/orchestrator';
import { startWorker } from '@trellis/engine/runtime/worker';
import { open, settings } from '../boot';
import { CliError } from '../fail';

function requireSharedDatabase(databaseUrl: string | undefined, what: string): void {
  if (!databaseUrl) {
    throw new CliError(
      `a separate ${what} needs DATABASE_URL: the embedded database serves one process. ` +
        'Set DATABASE_URL=postgres://…, or use `trellis run`, which works alone.',
    );
  }
}

/** Serves one pool until stopped; resolves never (the signal handler exits). */
export async function workerCommand(opts: { pool?: string; concurrency?: string }): Promise<number> {
  const env = settings();
  requireSharedDatabase(env.databaseUrl, 'worker');
  const concurrency = opts.concurrency === undefined ? env.concurrency : Number(opts.concurrency);
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new CliError(`--concurrency must be a positive whole number, not ${opts.concurrency}`);
  const pool = opts.pool ?? 'default';
  if (!/^[A-Za-z0-9][A-Za-z0-9_-]{0,62}$/.test(pool)) throw new CliError(`--pool must be a member pool id, not ${pool}`);
  const booted = await open(env);
  const worker = startWorker(booted.engine, { pool, concurrency });
  process.stderr.write(`trellis: worker serving pool ${pool} (concurrency ${concurrency})\n`);
  closeOnSignal(async () => {
    await worker.close();
    await booted.close();
  }, booted.engine.log);
  return new Promise<number>(() => undefined);
}

/** Runs the orchestrator until stopped. */
export async function orchestratorCommand(): Promise<number> {
  const env = settings();
  requireSharedDatabase(env.databaseUrl, 'orchestrator');
  const booted = await open(env);
  const orchestrator = startOrchestrator(booted.engine);
  process.stderr.write('trellis: orchestrator running\n');
  closeOnSignal(async () => {
    await orchestrator.close();
    await booted.close();
  }, booted.engine.log);
  return new Promise<number>(() => undefined);
}
