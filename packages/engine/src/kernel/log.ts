/**
 * The engine's loggers, all on stderr so stdout stays clean for `--json`: a readable line per event
 * (`text`, the default) or one JSON object per line through pino (`json`, TRELLIS_LOG_FORMAT=json),
 * with secrets redacted.
 */
import { pino, type DestinationStream } from 'pino';

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

/** Field names whose values never reach a log, at the top level or one object down (pino `redact` paths). */
const SECRET_KEYS = ['token', 'password', 'secret', 'apiKey', 'authorization', 'cookie', 'secretsKey'];
/** Connection strings: logged with their password replaced, so the host stays readable. */
const URL_KEYS = ['DATABASE_URL', 'REDIS_URL', 'databaseUrl', 'redisUrl', 'url'];
export const REDACT_PATHS = [...SECRET_KEYS, ...SECRET_KEYS.map((k) => `*.${k}`), ...URL_KEYS, ...URL_KEYS.map((k) => `*.${k}`)];

/** `scheme://user:password@` in any text becomes `scheme://user:[redacted]@`. */
export function scrubCredentials(text: string): string {
  return text.replace(/([a-z][a-z0-9+.-]*:\/\/[^:/@\s]*):[^@\s/]*@/gi, '$1:[redacted]@');
}

function censor(value: unknown, path: string[]): unknown {
  const key = path[path.length - 1] ?? '';
  if (URL_KEYS.includes(key) && typeof value === 'string') return scrubCredentials(value);
  return '[redacted]';
}

// The engine names a run `run` and a message `message` in its fields; JSON logs call them runId and
// messageId, so one query finds every line of a run whichever module wrote it.
function normalize(fields: Record<string, unknown> | undefined): Record<string, unknown> {
  if (!fields) return {};
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(fields)) {
    const name = k === 'run' ? 'runId' : k === 'message' ? 'messageId' : k;
    out[name] = typeof v === 'string' ? scrubCredentials(v) : v;
  }
  return out;
}

/** Options for {@link jsonLogger}. */
export interface JsonLoggerOptions {
  /** Log `info` too (else warnings and errors only). */
  verbose?: boolean;
  /** Where lines go (default stderr, written synchronously so nothing is lost on exit). */
  destination?: DestinationStream;
  /** Fields on every line, e.g. `{ service: 'trellis-worker' }`. */
  base?: Record<string, unknown>;
}

/**
 * One JSON object per line (pino): `level`, `time` (ms since the epoch), `msg`, the fields, with
 * `run`/`message` fields named `runId`/`messageId`. Values under {@link REDACT_PATHS} are replaced
 * by `[redacted]` (URLs keep all but their password), and credentials inside any string field or
 * message are scrubbed.
 */
export function jsonLogger(options: JsonLoggerOptions = {}): Logger {
  const log = pino(
    {
      level: options.verbose ? 'info' : 'warn',
      base: options.base ?? null,
      redact: { paths: REDACT_PATHS, censor },
    },
    options.destination ?? pino.destination({ fd: 2, sync: true }),
  );
  return {
    info: (m, f) => log.info(normalize(f), scrubCredentials(m)),
    warn: (m, f) => log.warn(normalize(f), scrubCredentials(m)),
    error: (m, f) => log.error(normalize(f), scrubCredentials(m)),
  };
}

/** The logger TRELLIS_LOG_FORMAT asks for: {@link jsonLogger} for `json`, {@link stderrLogger} for `text`. */
export function processLogger(format: 'text' | 'json', verbose = false, base?: Record<string, unknown>): Logger {
  return format === 'json' ? jsonLogger({ verbose, ...(base ? { base } : {}) }) : stderrLogger(verbose);
}
