/** Exit codes (DESIGN.md §6) and the one way the CLI reports an error: one line, no stack. */
import { describeError } from '@trellis/engine/errors';

/** 0 done/valid, 1 failed/stalled/findings, 2 bad arguments or unreachable Redis/database. */
export const EXIT = { ok: 0, failed: 1, usage: 2 } as const;

/** An error the CLI reports with a chosen exit code. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number = EXIT.usage,
  ) {
    super(message);
  }
}

/** Prints one line for `err` on stderr and returns the exit code it deserves. */
export function report(err: unknown): number {
  if (err instanceof CliError) {
    process.stderr.write(`trellis: ${err.message}\n`);
    return err.exitCode;
  }
  const view = describeError(err);
  if (view.code === 'internal' && err instanceof Error) {
    process.stderr.write(`trellis: ${err.message}\n`);
    return EXIT.failed;
  }
  process.stderr.write(`trellis: ${view.message}\n`);
  return view.status === 503 ? EXIT.usage : EXIT.failed;
}
