/** A minimal logger: one line per event on stderr, so stdout stays clean for `--json`. */

/** Where the engine reports what it does; plug in pino or the like by implementing it. */
export interface Logger {
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

function line(level: string, msg: string, fields?: Record<string, unknown>): string {
  return `${new Date().toISOString()} ${level} ${msg}${fields ? ` ${JSON.stringify(fields)}` : ''}\n`;
}

/** Logs warnings and errors to stderr; `info` too when `verbose`. */
export function stderrLogger(verbose = false): Logger {
  return {
    info: (m, f) => void (verbose && process.stderr.write(line('info', m, f))),
    warn: (m, f) => void process.stderr.write(line('warn', m, f)),
    error: (m, f) => void process.stderr.write(line('error', m, f)),
  };
}

/** Drops everything (tests). */
export const silentLogger: Logger = { info: () => undefined, warn: () => undefined, error: () => undefined };
