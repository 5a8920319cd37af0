/**
 * `trellis reopen <runId> [--latest] [--json] [--timeout <s>]`
 * Re-opens a failed or stalled run from its failed step, on the run's own mesh version (default) or
 * the latest saved one (`--latest`), works it off in this process when no worker is connected,
 * waits, and prints the summary with the attempt number.
 * Exit 0 done, 1 failed/stalled/timed out, 2 bad arguments, a run that cannot be re-opened (not
 * failed or stalled, failed member missing in the chosen version) or unreachable Redis/database.
 */
import { loadPlan } from '@trellis/engine/exec/plan';
import { startInProcess } from '@trellis/engine/runtime/in-process';
import type { Engine } from '@trellis/engine/runtime/context';
import { ReopenRefusedError, reopenRun } from '@trellis/engine/runs/reopen-run';
import { waitForRun } from '@trellis/engine/runs/wait-run';
import { open, settings } from '../boot';
import { CliError, EXIT } from '../fail';
import { printSummary, summaryJson } from '../summary';

/** Options of `reopen`. */
export interface ReopenOptions {
  latest?: boolean;
  json?: boolean;
  timeout?: string;
}

/** Re-opens one run and waits for it. */
export async function reopenCommand(runId: string, opts: ReopenOptions): Promise<number> {
  const timeoutSeconds = opts.timeout === undefined ? 600 : Number(opts.timeout);
  if (!Number.isFinite(timeoutSeconds) || timeoutSeconds <= 0) throw new CliError(`--timeout must be a positive number of seconds, not ${opts.timeout}`);
  const env = settings();
  const booted = await open(env);
  let local: { close(): Promise<void> } | undefined;
  try {
    const { engine } = booted;
    const version = opts.latest ? 'latest' : 'pinned';
    let reopened: Awaited<ReturnType<typeof reopenRun>>;
    try {
      reopened = await reopenRun(engine, { runId, version });
    } catch (err) {
      if (err instanceof ReopenRefusedError) throw new CliError(err.message, EXIT.usage);
      throw err;
    }
    const plan = await loadPlan(engine, reopened.meshId, reopened.toVersion);
    // The embedded database belongs to this process alone, so nobody else can work the run.
    if (!env.databaseUrl || !(await workersPresent(engine, plan.pools))) {
      local = startInProcess(engine, { pools: plan.pools, concurrency: env.concurrency });
    }
    const view = await waitForRun(engine.db, runId, { timeoutMs: timeoutSeconds * 1000 });
    const attempt = { attempt: reopened.attempt, version: reopened.toVersion, members: reopened.members, republished: reopened.messages };
    if (opts.json) process.stdout.write(`${JSON.stringify({ ...summaryJson(view), reopen: attempt })}\n`);
    else {
      process.stdout.write(`re-opened attempt ${attempt.attempt} on v${attempt.version} from ${attempt.members.join(', ')} (${attempt.republished} messages re-published)\n`);
      printSummary(view);
    }
    if (view.status === 'done') return EXIT.ok;
    if (!opts.json && view.status === 'running') process.stderr.write(`trellis: still running after ${timeoutSeconds} s\n`);
    return EXIT.failed;
  } finally {
    await local?.close();
    await booted.close();
  }
}

async function workersPresent(engine: Engine, pools: readonly string[]): Promise<boolean> {
  for (const pool of pools) {
    if ((await engine.queue(pool).getWorkers()).length === 0) return false;
  }
  return true;
}
