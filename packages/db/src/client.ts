/**
 * Database client factory: Postgres through `pg` when a URL is given, embedded PGlite otherwise.
 * Both return the same Drizzle `PgDatabase`, so every query is written once.
 */
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import pg from 'pg';

/** A Drizzle database on either driver. `execute(sql)` results carry `.rows` on both. */
export type Db = PgDatabase<PgQueryResultHKT>;

/** An open database and how to close it. */
export interface DbHandle {
  db: Db;
  kind: 'postgres' | 'pglite';
  /** Applies the committed SQL migrations under packages/db/drizzle (idempotent). */
  migrate(): Promise<void>;
  close(): Promise<void>;
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
  ) {
    super(
      `cannot reach the database at ${target}: ${cause instanceof Error ? cause.message : String(cause)}. ` +
        'Check DATABASE_URL (unset it to use the embedded database under .data/).',
    );
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
    try {
      await pool.query('select 1');
    } catch (err) {
      await pool.end().catch(() => undefined);
      throw new DatabaseUnreachableError(redactUrl(options.url), err);
    }
    const db = drizzlePg(pool) as unknown as Db;
    return {
      db,
      kind: 'postgres',
      migrate: () => migratePg(drizzlePg(pool), { migrationsFolder }),
      close: () => pool.end(),
    };
  }
  const dataDir = options.dataDir ?? '.data/pglite';
  let client: PGlite;
  try {
    if (!dataDir.startsWith('memory://')) mkdirSync(dataDir, { recursive: true });
    client = await PGlite.create(dataDir);
    await client.query('select 1');
  } catch (err) {
    throw new DatabaseUnreachableError(`embedded database in ${dataDir}`, err);
  }
  const db = drizzlePglite(client) as unknown as Db;
  return {
    db,
    kind: 'pglite',
    migrate: () => migratePglite(drizzlePglite(client), { migrationsFolder }),
    close: () => client.close(),
  };
}
