/** What `run` and `reopen` share: the `--timeout` option, working a run off in this process, the exit code. */
import { meshPools } from '@trellis/engine/meshes/mesh-pools';
import type { Engine } from '@trellis/engine/engine';
import { startInProcess } from '@trellis/engine/runtime/in-process';
import type { RunSummary } from '@trellis/engine/runs/get-run';
import type { CliEnv } from './env';
import { CliError, EXIT } from './fail';

/** Seconds a command waits for its run: `--timeout` (default 600 s). @throws CliError (exit 2) unless a positive number. */
export function timeoutSeconds(raw: string | undefined): number {
  const seconds = raw === undefined ? 600 : Number(raw);
  if (!Number.isFinite(seconds) || seconds <= 0) throw new CliError(`--timeout must be a positive number of seconds, not ${raw}`);
  return seconds;
}

/**
 * Starts an orchestrator and workers for the mesh version's pools in this process when the database
 * is embedded (it belongs to this process alone, so nobody else can work the run) or some pool has no
 * worker connected. Returns them to close when the command ends, or undefined when not started.
 */
export async function workLocallyUnlessServed(
  engine: Engine,
  env: CliEnv,
  meshId: string,
  version: number,
): Promise<{ close(): Promise<void> } | undefined> {
  const pools = await meshPools(engine, meshId, version);
  if (env.databaseUrl && (await workersPresent(engine, pools))) return undefined;
  return startInProcess(engine, { pools, concurrency: env.concurrency });
}

async function workersPresent(engine: Engine, pools: readonly string[]): Promise<boolean> {
  for (const pool of pools) {
    if ((await engine.queue(pool).getWorkers()).length === 0) return false;
  }
  return true;
}

/** Exit 0 when the run is done, else 1; says on stderr (not with `--json`) when it is still running after the wait. */
export function exitFor(view: Pick<RunSummary, 'status'>, json: boolean | undefined, waitedSeconds: number): number {
  if (view.status === 'done') return EXIT.ok;
  if (!json && view.status === 'running') process.stderr.write(`trellis: still running after ${waitedSeconds} s\n`);
  return EXIT.failed;
}
