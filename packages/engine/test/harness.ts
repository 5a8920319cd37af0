/**
 * Test harness for integration tests: a fresh database per test (a Postgres database
 * `trellis_t_<random>` created through the `postgres` database, or an in-memory PGlite), a BullMQ
 * prefix of its own, and cleanup of both.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { Redis } from 'ioredis';
import { openDb, type DbHandle } from '@trellis/db/client';
import { silentLogger } from '../src/log';
import { createEngine, type Engine, type EngineConfig } from '../src/runtime/context';
import { saveMesh } from '../src/meshes/save-mesh';

/** Postgres server for tests; a database is created on it per test. */
export const PG_ADMIN_URL = process.env.TRELLIS_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** The repository's self-test mesh and corpus. */
export const WORD_SPLIT = readFileSync(fileURLToPath(new URL('../../../examples/meshes/word-split.json', import.meta.url)), 'utf8');
export const LICENSES = readFileSync(fileURLToPath(new URL('../../../../shared/corpus/licenses.txt', import.meta.url)));

function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

async function admin<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: PG_ADMIN_URL });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

/** Creates `trellis_t_<random>` and returns its URL and a drop function. */
export async function createTestDatabase(): Promise<{ name: string; url: string; drop(): Promise<void> }> {
  const name = `trellis_t_${randomBytes(6).toString('hex')}`;
  await admin((c) => c.query(`create database ${name}`));
  return {
    name,
    url: withDatabase(PG_ADMIN_URL, name),
    drop: () => admin((c) => c.query(`drop database if exists ${name} with (force)`)).then(() => undefined),
  };
}

/** Deletes every key under a BullMQ prefix. */
export async function dropPrefix(prefix: string): Promise<void> {
  const r = new Redis(REDIS_URL);
  try {
    let cursor = '0';
    do {
      const [next, keys] = await r.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
      cursor = next;
      if (keys.length > 0) await r.del(...keys);
    } while (cursor !== '0');
  } finally {
    r.disconnect();
  }
}

/** One test's world: database, engine, and how to tear both down. */
export interface TestWorld {
  handle: DbHandle;
  engine: Engine;
  prefix: string;
  /** The Postgres database's name (undefined on PGlite). */
  databaseName: string | undefined;
  close(): Promise<void>;
}

/** Opens a fresh, migrated database of the given kind and an engine on its own queue prefix. */
export async function openWorld(kind: 'postgres' | 'pglite', config: Partial<EngineConfig> = {}): Promise<TestWorld> {
  const database = kind === 'postgres' ? await createTestDatabase() : undefined;
  const handle = await openDb(database ? { url: database.url } : { dataDir: 'memory://' });
  await handle.migrate();
  const prefix = `tt${randomBytes(5).toString('hex')}`;
  const engine = createEngine({
    db: handle.db,
    redisUrl: REDIS_URL,
    prefix,
    log: silentLogger,
    batchesInFlight: kind === 'pglite' ? 1 : 4,
    ...config,
  });
  return {
    handle,
    engine,
    prefix,
    databaseName: database?.name,
    async close() {
      await engine.close();
      await handle.close();
      await database?.drop();
      await dropPrefix(prefix);
    },
  };
}

/** Saves a mesh file and returns its id. @throws when it is refused. */
export async function saveOrThrow(world: TestWorld, definition: unknown): Promise<string> {
  const saved = await saveMesh(world.engine.db, { definition });
  if (!saved.ok) throw new Error(`mesh refused: ${saved.message} ${JSON.stringify(saved.findings)}`);
  return saved.meshId;
}
