/**
 * Database client factory: Postgres through `pg` when a URL is given, embedded PGlite otherwise.
 * Both return the same Drizzle `PgDatabase`, so every query is written once.
 */
import { chmodSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import pg from 'pg';
import { isCertificateRefusal } from './tls';

/** A Drizzle database on either driver. `execute(sql)` results carry `.rows` on both. */
export type Db = PgDatabase<PgQueryResultHKT>;

/** An open database and how to close it. */
export interface DbHandle {
  db: Db;
  kind: 'postgres' | 'pglite';
  /** Applies the committed SQL migrations under packages/db/drizzle (idempotent). */
  migrate(): Promise<void>;
  /**
   * A consistent copy of the embedded database while it stays open: between transactions (no one is
   * open while it is taken), after a CHECKPOINT, as PGlite's gzipped tarball of the data directory
   * (`dumpDataDir('gzip')`; {@link restoreDataDir} loads it). Bytes, in memory.
   * @throws SnapshotUnsupportedError on Postgres, whose own tools (pg_dump, pg_basebackup) do this.
   */
  snapshot(): Promise<Uint8Array>;
  close(): Promise<void>;
}

const SNAPSHOT_UNSUPPORTED = Symbol.for('trellis.snapshot-unsupported-error');

/**
 * A snapshot asked of a Postgres database: Trellis does not copy a server it does not own. Test for
 * it with {@link isSnapshotUnsupported}, not `instanceof`: the web server loads this module more than
 * once (its startup hook and its routes are separate bundles), and the handle that throws may come
 * from the other copy.
 */
export class SnapshotUnsupportedError extends Error {
  /** Brand every copy of this class shares (a registered symbol). */
  readonly [SNAPSHOT_UNSUPPORTED] = true;
  constructor() {
    super(
      'the database is Postgres (DATABASE_URL): Trellis snapshots only the embedded database; back Postgres up with ' +
        'pg_dump, or pg_basebackup with WAL archiving for point-in-time recovery (docs/operations.md, "Backups")',
    );
    this.name = 'SnapshotUnsupportedError';
  }
}

/** True when `err` is a {@link SnapshotUnsupportedError} made by any copy of this module. */
export function isSnapshotUnsupported(err: unknown): err is SnapshotUnsupportedError {
  return typeof err === 'object' && err !== null && (err as { [SNAPSHOT_UNSUPPORTED]?: unknown })[SNAPSHOT_UNSUPPORTED] === true;
}

/** Options for {@link openDb}. */
export interface OpenDbOptions {
  /** `postgres://…`; when absent an embedded PGlite database is opened in `dataDir`. */
  url?: string | undefined;
  /** PGlite data directory (created if missing); `memory://` for an in-memory database. */
  dataDir?: string | undefined;
  /** Postgres pool size (default 10). */
  poolSize?: number | undefined;
}

/** Thrown when the database cannot be reached; names the setting to fix. */
export class DatabaseUnreachableError extends Error {
  constructor(
    readonly target: string,
    cause: unknown,
    hint?: string,
  ) {
    const detail = cause instanceof Error ? cause.message : String(cause);
    const fix =
      hint ??
      (isCertificateRefusal(detail)
        ? "The server's TLS certificate was refused: point sslrootcert= in DATABASE_URL at the CA that signed it, and use the host name the certificate names (sslmode=verify-full checks both)."
        : 'Check DATABASE_URL (unset it to use the embedded database under .data/).');
    super(`cannot reach the database at ${target}: ${detail}. ${fix}`);
    this.name = 'DatabaseUnreachableError';
  }
}

const migrationsFolder = fileURLToPath(new URL('../drizzle', import.meta.url));

/** Hides the password of a connection URL for messages. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '(unparsable DATABASE_URL)';
  }
}

// Any constant works; it only has to be the same in every process that migrates this database.
const MIGRATION_LOCK = 7_417_001;

/** Applies migrations under a session advisory lock, so processes starting together take turns. */
async function migrateLocked(pool: pg.Pool): Promise<void> {
  const lock = await pool.connect();
  try {
    await lock.query('select pg_advisory_lock($1)', [MIGRATION_LOCK]);
    await migratePg(drizzlePg(pool), { migrationsFolder });
  } finally {
    await lock.query('select pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => undefined);
    lock.release();
  }
}

/**
 * A transaction on a client of its own that is always handed back. Drizzle's pool transaction
 * sends `begin` before its try/finally, so a connection that dies during `begin` (a server restart,
 * pg_terminate_backend) is never released and the pool slowly runs dry. Here any error returns the
 * client with that error, which makes the pool discard it; the caller may retry on a fresh one.
 */
async function pooledTransaction<T>(
  pool: pg.Pool,
  fn: Parameters<Db['transaction']>[0],
  config: Parameters<Db['transaction']>[1],
): Promise<T> {
  const client = await pool.connect();
  let failure: Error | undefined;
  try {
    // A Drizzle database over one client runs begin/commit/rollback on it without pooling logic.
    const single = drizzlePg(client) as unknown as Db;
    return (await single.transaction(fn, config)) as T;
  } catch (err) {
    failure = err instanceof Error ? err : new Error(String(err));
    throw err;
  } finally {
    client.release(failure);
  }
}

/**
 * Opens the database and checks it answers (`select 1`).
 * @throws DatabaseUnreachableError when Postgres refuses or PGlite cannot open its directory.
 */
export async function openDb(options: OpenDbOptions = {}): Promise<DbHandle> {
  if (options.url) {
    const pool = new pg.Pool({
      connectionString: options.url,
      max: options.poolSize ?? 10,
      connectionTimeoutMillis: 5000,
    });
    // An idle client losing its connection (e.g. pg_terminate_backend) must not crash the process;
    // the pool drops it and the next query gets a fresh connection.
    pool.on('error', () => undefined);
    // A checked-out client whose server connection drops between two statements emits 'error'
    // too; unheard, that would end the process. Its next query fails instead, and the caller retries.
    pool.on('connect', (client) => client.on('error', () => undefined));
    try {
      await pool.query('select 1');
    } catch (err) {
      await pool.end().catch(() => undefined);
      throw new DatabaseUnreachableError(redactUrl(options.url), err);
    }
    const db = drizzlePg(pool) as unknown as Db;
    db.transaction = (fn, config) => pooledTransaction(pool, fn, config);
    return {
      db,
      kind: 'postgres',
      migrate: () => migrateLocked(pool),
      snapshot: () => Promise.reject(new SnapshotUnsupportedError()),
      close: () => pool.end(),
    };
  }
  const dataDir = options.dataDir ?? '.data/pglite';
  const inMemory = dataDir.startsWith('memory://');
  let client: PGlite;
  let unlock = () => undefined as void;
  try {
    if (!inMemory) {
      mkdirSync(dirname(dataDir), { recursive: true, mode: 0o700 });
      privateDataDir(dataDir);
      unlock = lockDataDir(dataDir);
    }
    client = await PGlite.create(dataDir);
    await client.query('select 1');
    if (!inMemory) privateFiles(dataDir);
  } catch (err) {
    unlock();
    if (err instanceof DatabaseUnreachableError) throw err;
    throw new DatabaseUnreachableError(`embedded database in ${dataDir}`, err);
  }
  const db = drizzlePglite(client) as unknown as Db;
  return {
    db,
    kind: 'pglite',
    migrate: () => migratePglite(drizzlePglite(client), { migrationsFolder }),
    // PGlite runs one statement and one transaction at a time. The CHECKPOINT writes buffered pages
    // out, so little WAL is left to replay on restore; the copy is then taken holding the transaction
    // turn (query and exec take it too, so it cannot wrap the CHECKPOINT): every transaction has then
    // committed, with its WAL in the files copied, or not begun.
    snapshot: async () => {
      await client.exec('CHECKPOINT');
      const tarball = await client._runExclusiveTransaction(() => client.dumpDataDir('gzip'));
      return new Uint8Array(await tarball.arrayBuffer());
    },
    close: async () => {
      await client.close();
      unlock();
    },
  };
}

/**
 * Makes `dir` (PGlite's data directory) private to this user: created with mode 0700 when missing,
 * an existing one tightened to 0700. PGlite writes its files world-writable whatever the umask, so
 * the directory's mode is what keeps other local users from reading or rewriting the database
 * (password and token hashes included). Folders created above it are 0700 too; an existing parent
 * is left as it is.
 * @throws the fs error when `dir` cannot be created or its mode changed (e.g. another user owns it).
 */
export function privateDataDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
}

/**
 * Tightens the files PGlite has written under `dir` to 0600 and its folders to 0700 (symbolic
 * links are left alone). The private data directory ({@link privateDataDir}) already protects them;
 * this keeps a copied or moved directory from carrying world-writable files along. Files PGlite
 * creates later get its own mode again, still inside the private directory.
 */
export function privateFiles(dir: string): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      chmodSync(path, 0o700);
      privateFiles(path);
    } else if (entry.isFile() && (lstatSync(path).mode & 0o077) !== 0) {
      chmodSync(path, 0o600);
    }
  }
}

/**
 * PGlite has no lock of its own, and two processes writing one data directory corrupt it. A lock
 * file holding the owner's pid keeps a second process out; a lock left by a dead process is taken over.
 * @returns the function that releases the lock.
 * @throws DatabaseUnreachableError naming the process that holds it.
 */
export function lockDataDir(dataDir: string): () => void {
  const file = join(dataDir, '..', `${basename(dataDir)}.lock`);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(file, String(process.pid), { flag: 'wx' });
      return () => rmSync(file, { force: true });
    } catch (err) {
      if ((err as { code?: string }).code !== 'EEXIST') throw err;
      const owner = Number(readFileSync(file, 'utf8'));
      if (Number.isInteger(owner) && owner > 0 && owner !== process.pid && isAlive(owner)) {
        throw new DatabaseUnreachableError(
          `embedded database in ${dataDir}`,
          new Error(`process ${owner} has it open (the web server or another trellis command)`),
          'The embedded database serves one process: stop that one, or set DATABASE_URL so processes share Postgres.',
        );
      }
      rmSync(file, { force: true });
    }
  }
  throw new DatabaseUnreachableError(`embedded database in ${dataDir}`, new Error('its lock file could not be taken'));
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as { code?: string }).code === 'EPERM';
  }
}
