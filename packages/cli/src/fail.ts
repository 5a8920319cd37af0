/** Exit codes (DESIGN.md §6) and the one way the CLI reports an error: one line, no stack. */
import { describeError } from '@trellis/engine/errors';

/** 0 done/valid, 1 failed/stalled/findings, 2 bad arguments or unreachable Redis/database. */
export const EXIT = { ok: 0, failed: 1, usage: 2 } as const;

/**
 * An error the CLI reports with a chosen exit code. `answered`: the command has already printed its
 * JSON answer for it on stdout (e.g. a refused mesh's findings), so {@link report} prints no second one.
 */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number = EXIT.usage,
    readonly answered = false,
  ) {
    super(message);
  }
}

/** Whether this command was asked for JSON (`--json` anywhere on its command line). */
export function wantsJson(argv: readonly string[] = process.argv): boolean {
  return argv.includes('--json');
}

/**
 * Prints one line for `err` on stderr and returns the exit code it deserves. With `--json` it also
 * prints one JSON object on stdout, `{ "error": { "code", "message" } }` (plus `cause` and
 * `findings` when the error carries them), so a script reading stdout always gets JSON.
 */
export function report(err: unknown, json = wantsJson()): number {
  let line: string;
  let code: number;
  let body: { code: string; message: string; cause?: string; findings?: unknown } | undefined;
  if (err instanceof CliError) {
    line = err.message;
    code = err.exitCode;
    body = err.answered ? undefined : { code: err.exitCode === EXIT.usage ? 'usage' : 'failed', message: err.message };
  } else {
    const view = describeError(err);
    if (view.code === 'internal' && err instanceof Error) {
      line = err.message;
      code = EXIT.failed;
    } else {
      line = view.message;
      code = view.status === 503 ? EXIT.usage : EXIT.failed;
    }
    body = { code: view.code, message: line, ...(view.cause ? { cause: view.cause } : {}), ...(view.findings ? { findings: view.findings } : {}) };
  }
  process.stderr.write(`trellis: ${line}\n`);
  if (json && body) process.stdout.write(`${JSON.stringify({ error: body })}\n`);
  return code;
}
