/** `trellis worker` and `trellis orchestrator`: long-running processes until SIGTERM/SIGINT. */
import { closeOnSignal } from '@trellis/engine/runtime/boot';
import { startOrchestrator } from '@trellis/engine/runtime/orchestrator';
import { parsePools, servePools, type PoolSelection } from '@trellis/engine/runtime/pools';
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

/**
 * Serves one or more pools until stopped (`--pool agents`, `--pool default,agents`, or `--pool '*'`
 * for every pool saved meshes name); resolves never (the signal handler exits).
 */
export async function workerCommand(opts: { pool?: string; concurrency?: string }): Promise<number> {
  const env = settings();
  requireSharedDatabase(env.databaseUrl, 'worker');
  const concurrency = opts.concurrency === undefined ? env.concurrency : Number(opts.concurrency);
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new CliError(`--concurrency must be a positive whole number, not ${opts.concurrency}`);
  let pools: PoolSelection;
  try {
    pools = parsePools(opts.pool ?? 'default', '--pool');
  } catch (err) {
    throw new CliError(err instanceof Error ? err.message : String(err));
  }
  const booted = await open(env);
  const workers = servePools(booted.engine, pools, { concurrency });
  const named = pools === 'saved' ? 'every pool saved meshes name' : `pool${pools.length > 1 ? 's' : ''} ${pools.join(', ')}`;
  process.stderr.write(`trellis: worker serving ${named} (concurrency ${concurrency})\n`);
  closeOnSignal(async () => {
    await workers.close();
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
