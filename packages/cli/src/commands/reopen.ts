/**
 * `trellis reopen <runId> [--latest] [--json] [--timeout <s>]`
 * Re-opens a failed or stalled run from its failed step, on the run's own mesh version (default) or
 * the latest saved one (`--latest`), works it off in this process when no worker is connected,
 * waits, and prints the summary with the attempt number.
 * Exit 0 done, 1 failed/stalled/timed out, 2 bad arguments, a run that cannot be re-opened (not
 * failed or stalled, failed member missing in the chosen version) or unreachable Redis/database.
 */
import { ReopenRefusedError, reopenRun } from '@trellis/engine/runs/reopen-run';
import { waitForRun } from '@trellis/engine/runs/wait-run';
import { open, settings } from '../boot';
import { CliError, EXIT } from '../fail';
import { exitFor, timeoutSeconds, workLocallyUnlessServed } from '../local-run';
import { printSummary, summaryJson } from '../summary';

/** Options of `reopen`. */
export interface ReopenOptions {
  latest?: boolean;
  json?: boolean;
  timeout?: string;
}

/** Re-opens one run and waits for it. */
export async function reopenCommand(runId: string, opts: ReopenOptions): Promise<number> {
  const waitSeconds = timeoutSeconds(opts.timeout);
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
    local = await workLocallyUnlessServed(engine, env, reopened.meshId, reopened.toVersion);
    const view = await waitForRun(engine.db, runId, { timeoutMs: waitSeconds * 1000 });
    const attempt = { attempt: reopened.attempt, version: reopened.toVersion, members: reopened.members, republished: reopened.messages };
    if (opts.json) process.stdout.write(`${JSON.stringify({ ...summaryJson(view), reopen: attempt })}\n`);
    else {
      process.stdout.write(`re-opened attempt ${attempt.attempt} on v${attempt.version} from ${attempt.members.join(', ')} (${attempt.republished} messages re-published)\n`);
      printSummary(view);
    }
    return exitFor(view, opts.json, waitSeconds);
  } finally {
    await local?.close();
    await booted.close();
  }
}
