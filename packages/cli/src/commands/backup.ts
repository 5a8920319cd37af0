/**
 * `trellis backup --output <file>` copies the embedded database (a consistent snapshot, taken while
 * Trellis runs); `trellis restore <file>` puts one back. When a running server holds the embedded
 * database, `--url` and `--token` (an admin token) ask it for the copy instead
 * (`GET /api/v1/admin/backup`). Postgres is backed up with pg_dump / pg_basebackup (docs/operations.md).
 */
import { createHash } from 'node:crypto';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { restoreDataDir } from '@trellis/db/backup';
import { DatabaseUnreachableError, openDb } from '@trellis/db/client';
import { settings } from '../boot';
import { CliError, EXIT } from '../fail';

/** Options of `trellis backup`. */
export interface BackupOptions {
  output: string;
  /** A running Trellis to ask, e.g. http://localhost:3000. */
  url?: string;
  /** An admin API token (`trl_…`) for `--url`; TRELLIS_TOKEN when absent. */
  token?: string;
  json?: boolean;
}

const POSTGRES_HINT =
  'DATABASE_URL is Postgres: back it up with `pg_dump --format=custom "$DATABASE_URL" > trellis.dump` ' +
  '(or pg_basebackup with WAL archiving for point-in-time recovery; docs/operations.md, "Backups")';

/** Writes `bytes` to `file` whole or not at all (a temporary file renamed), readable by its owner only. */
function writeWhole(file: string, bytes: Uint8Array): void {
  const partial = `${file}.partial`;
  writeFileSync(partial, bytes, { mode: 0o600 });
  renameSync(partial, file);
}

async function fromServer(url: string, token: string | undefined): Promise<Uint8Array> {
  if (!token) throw new CliError('--url needs an admin API token: --token trl_… (or TRELLIS_TOKEN)');
  const endpoint = new URL('/api/v1/admin/backup', url);
  let res: Response;
  try {
    res = await fetch(endpoint, { headers: { authorization: `Bearer ${token}` } });
  } catch (err) {
    throw new CliError(`cannot reach Trellis at ${endpoint.origin} (--url): ${err instanceof Error ? err.message : String(err)}`);
  }
  const body = (await res.json().catch(() => ({}))) as { data?: string; sha256?: string; error?: { message?: string } };
  if (!res.ok || typeof body.data !== 'string') {
    throw new CliError(`Trellis at ${endpoint.origin} refused the backup (${res.status}): ${body.error?.message ?? 'no snapshot in the answer'}`, EXIT.failed);
  }
  const bytes = Buffer.from(body.data, 'base64');
  if (createHash('sha256').update(bytes).digest('hex') !== body.sha256) throw new CliError('the snapshot arrived damaged: its SHA-256 differs from the one sent', EXIT.failed);
  return bytes;
}

async function fromDataDir(dataDir: string): Promise<Uint8Array> {
  let handle;
  try {
    handle = await openDb({ dataDir });
  } catch (err) {
    if (err instanceof DatabaseUnreachableError && /has it open/.test(err.message)) {
      throw new CliError(`${err.message.split('. ')[0]}. Ask that Trellis for the copy: trellis backup --output <file> --url http://localhost:3000 --token <admin token>`);
    }
    throw err;
  }
  try {
    return await handle.snapshot();
  } finally {
    await handle.close();
  }
}

/** Copies the database into `--output`. @throws CliError on Postgres, a held data directory without --url, or a refused request. */
export async function backupCommand(opts: BackupOptions): Promise<number> {
  const env = settings();
  let bytes: Uint8Array;
  let source: string;
  if (opts.url) {
    bytes = await fromServer(opts.url, opts.token ?? env.token);
    source = opts.url;
  } else {
    if (env.databaseUrl) throw new CliError(POSTGRES_HINT);
    bytes = await fromDataDir(env.dataDir);
    source = env.dataDir;
  }
  writeWhole(opts.output, bytes);
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  if (opts.json) process.stdout.write(`${JSON.stringify({ output: opts.output, bytes: bytes.length, sha256, source })}\n`);
  else process.stdout.write(`backed up ${source} to ${opts.output} (${bytes.length} bytes, sha256 ${sha256})\n`);
  return EXIT.ok;
}

/** Restores a backup into the embedded database's directory. @throws CliError on Postgres; DatabaseUnreachableError while a process holds the directory. */
export async function restoreCommand(file: string, opts: { json?: boolean }): Promise<number> {
  const env = settings();
  if (env.databaseUrl) throw new CliError('DATABASE_URL is Postgres: restore it with pg_restore (docs/operations.md, "Backups"); `trellis restore` loads the embedded database only');
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (err) {
    throw new CliError(`cannot read backup file ${file}: ${err instanceof Error ? err.message : String(err)}`);
  }
  let result;
  try {
    result = await restoreDataDir(env.dataDir, bytes);
  } catch (err) {
    if (err instanceof Error && err.message.startsWith('not a Trellis backup')) throw new CliError(`${file}: ${err.message}`);
    throw err;
  }
  if (opts.json) process.stdout.write(`${JSON.stringify({ dataDir: result.dataDir, previous: result.previous ?? null })}\n`);
  else {
    process.stdout.write(`restored ${file} into ${result.dataDir}\n`);
    if (result.previous) process.stdout.write(`its earlier contents are in ${result.previous}\n`);
  }
  return EXIT.ok;
}
