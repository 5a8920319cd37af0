/**
 * `trellis cancel <runId> [--reason <text>] [--json]`
 * Cancels a running, stalled or queued run: its running steps are stopped wherever they run, its
 * open messages set aside, its child runs cancelled with it.
 * Exit 0 cancelled, 2 a run that has already ended, no such run, or unreachable Redis/database.
 */
import { cancelRun, RunEndedAlreadyError } from '@trellis/engine/runs/cancel-run';
import { RunNotFoundError } from '@trellis/engine/errors';
import { open, settings } from '../boot';
import { CliError, EXIT } from '../fail';

/** Options of `cancel`. */
export interface CancelOptions {
  reason?: string;
  json?: boolean;
}

/** Cancels one run and says what was stopped. */
export async function cancelCommand(runId: string, opts: CancelOptions): Promise<number> {
  const booted = await open(settings());
  try {
    let result: Awaited<ReturnType<typeof cancelRun>>;
    try {
      result = await cancelRun(booted.engine, { runId, reason: opts.reason });
    } catch (err) {
      if (err instanceof RunEndedAlreadyError || err instanceof RunNotFoundError) throw new CliError(err.message, EXIT.usage);
      throw err;
    }
    if (opts.json) process.stdout.write(`${JSON.stringify(result)}\n`);
    else {
      const children = result.runs.length - 1;
      process.stdout.write(`cancelled run ${runId}: ${result.messages} open message(s) set aside${children > 0 ? `, ${children} child run(s) cancelled with it` : ''}\n`);
    }
    return EXIT.ok;
  } finally {
    await booted.close();
  }
}
