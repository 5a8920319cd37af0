/**
 * Test harness for integration tests: a fresh database per test (a Postgres database
 * `trellis_t_<random>` created through the `postgres` database, or an in-memory PGlite), a BullMQ
 * prefix of its own, and cleanup of both.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { Redis } from 'ioredis';
import { openDb, type Db, type DbHandle } from '@trellis/db/client';
import { silentLogger } from '../src/kernel/log';
import { createEngine, type Engine, type EngineConfig, type EngineOptions } from '../src/kernel/engine';
import { saveMesh } from '../src/meshes/save-mesh';
import { sql } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { startInProcess, type InProcessOptions } from '../src/runtime/in-process';
import { rows, type Queryable } from '../src/kernel/sql';
import { queueName } from '../src/kernel/queues';
import { allowEgress } from '../src/policy/egress';
import { keyOf } from '../src/policy/secret-key';
import { setSecret, type SecretKind } from '../src/policy/secrets';
import { until } from './recorder';

/** Postgres server for tests; a database is created on it per test. */
export const PG_ADMIN_URL = process.env.TRELLIS_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** The repository's self-test mesh and corpus. */
export const WORD_SPLIT = readFileSync(fileURLToPath(new URL('../../../examples/meshes/word-split.json', import.meta.url)), 'utf8');

let licenses: Buffer | undefined;
/**
 * `licenses.txt` of the shared corpus (17,721 words), read on first use: from `TRELLIS_CORPUS_DIR`
 * when set, else from `../shared/corpus` beside the repository.
 * @throws Error naming the path tried and the variable to set when the file is not there.
 */
export function licensesText(): Buffer {
  if (licenses) return licenses;
  const dir = process.env.TRELLIS_CORPUS_DIR ?? fileURLToPath(new URL('../../../../shared/corpus', import.meta.url));
  const file = join(dir, 'licenses.txt');
  try {
    licenses = readFileSync(file);
  } catch (err) {
    throw new Error(`the test corpus is missing: ${file} (${(err as Error).message}); set TRELLIS_CORPUS_DIR to the folder holding licenses.txt`);
  }
  return licenses;
}

/** The first `n` form-feed separated pages of a document (all of it when it has fewer). */
export function pages(doc: Buffer, n: number): Buffer {
  let at = -1;
  for (let i = 0; i < n; i++) {
    at = doc.indexOf(0x0c, at + 1);
    if (at < 0) return doc;
  }
  return doc.subarray(0, at + 1);
}

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
export async function dropPrefix(prefix: string, redisUrl = REDIS_URL): Promise<void> {
  const r = new Redis(redisUrl);
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

/** The secrets key every test engine uses unless told otherwise, so tests can store secrets its guard opens. */
export const TEST_SECRETS_KEY = keyOf(Buffer.alloc(32, 7));

/**
 * Lets the world's steps reach local test servers: admin egress rules marking each host (`name`
 * or `name:port`) internal. Loopback is refused otherwise (docs/security.md).
 */
export async function allowInternal(world: TestWorld, ...hosts: string[]): Promise<void> {
  for (const pattern of hosts) await allowEgress(world.engine.db, { pattern, internal: true, by: 'test' });
}

/** Stores a secret (`hosts` it may go to) or a named connection the world's engine can open. */
export async function storeSecret(world: TestWorld, kind: SecretKind, name: string, value: string, hosts: string[] = []): Promise<void> {
  await setSecret(world.engine.db, TEST_SECRETS_KEY, { kind, name, value, hosts, by: 'test' });
}

/** A fresh, migrated database alone: its handle, its Postgres name (undefined on PGlite), and how to close and drop it. */
export interface TestDb {
  handle: DbHandle;
  databaseName: string | undefined;
  close(): Promise<void>;
}

/** Opens a fresh, migrated database: `trellis_t_<random>` on the test Postgres, or an in-memory PGlite. */
export async function openTestDb(kind: 'postgres' | 'pglite'): Promise<TestDb> {
  const database = kind === 'postgres' ? await createTestDatabase() : undefined;
  const handle = await openDb(database ? { url: database.url } : { dataDir: 'memory://' });
  await handle.migrate();
  return {
    handle,
    databaseName: database?.name,
    async close() {
      await handle.close();
      await database?.drop();
    },
  };
}

/**
 * A test file's own database (no engine, no Redis), opened before its tests and closed after them;
 * read `.db` inside tests. Call once per file.
 */
export function useTestDb(kind: 'postgres' | 'pglite' = 'pglite'): { readonly db: Db; readonly handle: DbHandle } {
  let opened: TestDb | undefined;
  beforeAll(async () => {
    opened = await openTestDb(kind);
  }, 180_000);
  afterAll(async () => opened?.close());
  const handle = (): DbHandle => {
    if (!opened) throw new Error('useTestDb: the database is opened in beforeAll; read it inside a test');
    return opened.handle;
  };
  return {
    get handle() {
      return handle();
    },
    get db() {
      return handle().db;
    },
  };
}

/**
 * The bus the matrix runs on: TRELLIS_TEST_BUS=local runs the bus tests on the in-process bus
 * (kernel/local-bus.ts), anything else (the default) on BullMQ. `npm run test:local-bus` in
 * packages/engine runs the bus tests that way.
 */
export const TEST_BUS: 'redis' | 'local' = process.env.TRELLIS_TEST_BUS === 'local' ? 'local' : 'redis';

/** Opens a fresh, migrated database of the given kind and an engine on its own queue prefix. */
export async function openWorld(
  kind: 'postgres' | 'pglite',
  config: Partial<EngineConfig> & Pick<EngineOptions, 'runAgent' | 'security' | 'log' | 'bus'> = {},
  redisUrl = REDIS_URL,
): Promise<TestWorld> {
  const db = await openTestDb(kind);
  const { handle, databaseName } = db;
  const prefix = `{tt${randomBytes(5).toString('hex')}}`;
  const engine = createEngine({
    db: handle.db,
    redisUrl,
    bus: TEST_BUS,
    prefix,
    log: silentLogger,
    batchesInFlight: kind === 'pglite' ? 1 : 4,
    ...config,
    security: { secretsKey: TEST_SECRETS_KEY, ...config.security },
  });
  return {
    handle,
    engine,
    prefix,
    databaseName,
    async close() {
      await engine.close();
      await db.close();
      await dropPrefix(prefix, redisUrl).catch(() => undefined);
    },
  };
}

/** A test file's worlds: open them and start runtimes on them; each test's are closed after it. */
export interface Worlds {
  /** {@link openWorld} (Postgres unless told; the shared Redis unless `redisUrl`), closed after the test. */
  open(config?: Parameters<typeof openWorld>[1], kind?: 'postgres' | 'pglite', redisUrl?: string): Promise<TestWorld>;
  /** {@link startInProcess} on the world's engine, closed after the test before any world. */
  start(world: TestWorld, options?: InProcessOptions): { close(): Promise<void> };
}

/**
 * Registers an `afterEach` that closes, in this order, every runtime started and every world opened
 * during the test (a runtime the test closed itself is not closed twice). Call once per `describe`
 * (or file).
 */
export function useWorlds(): Worlds {
  let runtimes: { close(): Promise<void> }[] = [];
  let worlds: TestWorld[] = [];
  afterEach(async () => {
    const [r, w] = [runtimes, worlds];
    runtimes = [];
    worlds = [];
    for (const runtime of r.reverse()) await runtime.close();
    for (const world of w.reverse()) await world.close();
  });
  return {
    async open(config = {}, kind = 'postgres', redisUrl = REDIS_URL) {
      const world = await openWorld(kind, config, redisUrl);
      worlds.push(world);
      return world;
    },
    start(world, options) {
      const inner = startInProcess(world.engine, options);
      let closing: Promise<void> | undefined;
      const runtime = { close: () => (closing ??= inner.close()) };
      runtimes.push(runtime);
      return runtime;
    },
  };
}

/** Saves a mesh file and returns its id. @throws when it is refused. */
export async function saveOrThrow(world: TestWorld, definition: unknown): Promise<string> {
  const saved = await saveMesh(world.engine.db, { definition });
  if (!saved.ok) throw new Error(`mesh refused: ${saved.message} ${JSON.stringify(saved.findings)}`);
  return saved.meshId;
}

/** A worker or orchestrator process started by a test (`node --import tsx workers/<kind>/src/main.ts`). */
export interface WorkerProcess {
  readonly pid: number;
  /** Resolves with the exit code (or the signal's name) when the process ends. */
  readonly exited: Promise<number | string>;
  /** Output on stderr so far, for failure messages. */
  stderr(): string;
  /** Sends a signal to this process only (SIGTERM when absent). */
  signal(sig?: NodeJS.Signals): void;
}

const WORKER_START_S = 120;
const REPO_DIR = fileURLToPath(new URL('../../../', import.meta.url));
const WORKER_MAIN = fileURLToPath(new URL('../../../workers/worker/src/main.ts', import.meta.url));
const ORCHESTRATOR_MAIN = fileURLToPath(new URL('../../../workers/orchestrator/src/main.ts', import.meta.url));

/**
 * Starts a worker process on the world's Postgres database and queue prefix; `env` adds or
 * overrides settings (e.g. a short TRELLIS_LOCK_DURATION_MS). Resolves once it says it started.
 */
export function spawnWorker(world: TestWorld, env: Record<string, string> = {}, redisUrl = REDIS_URL): Promise<WorkerProcess> {
  return spawnEngineProcess(world, WORKER_MAIN, 'worker started', env, redisUrl);
}

/**
 * Starts an orchestrator process (`tsx workers/orchestrator/src/main.ts`) on the world's Postgres
 * database and queue prefix, like {@link spawnWorker}. Resolves once it says it started.
 */
export function spawnOrchestrator(world: TestWorld, env: Record<string, string> = {}, redisUrl = REDIS_URL): Promise<WorkerProcess> {
  return spawnEngineProcess(world, ORCHESTRATOR_MAIN, 'orchestrator started', env, redisUrl);
}

async function spawnEngineProcess(world: TestWorld, main: string, startedLine: string, env: Record<string, string>, redisUrl: string): Promise<WorkerProcess> {
  if (!world.databaseName) throw new Error('worker processes need a Postgres world');
  // `node --import tsx`, not the tsx wrapper: SIGKILL and SIGSTOP must reach the worker itself.
  const child = spawn(process.execPath, ['--import', 'tsx', main], {
    cwd: REPO_DIR,
    env: {
      ...process.env,
      DATABASE_URL: withDatabase(PG_ADMIN_URL, world.databaseName),
      REDIS_URL: redisUrl,
      TRELLIS_QUEUE_PREFIX: world.prefix,
      TRELLIS_CONCURRENCY: '200',
      ...env,
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  let started: () => void = () => undefined;
  const ready = new Promise<void>((r) => (started = r));
  child.stderr.on('data', (b: Buffer) => {
    err += b.toString();
    if (err.includes(startedLine)) started();
  });
  const exited = new Promise<number | string>((resolve) => child.once('exit', (code, sig) => resolve(code ?? sig ?? -1)));
  await Promise.race([
    ready,
    exited.then((c) => {
      throw new Error(`${main} exited (${c}) before starting: ${err}`);
    }),
    // A generous start deadline: on a loaded machine loading the worker's TypeScript alone can take 30 s.
    new Promise((_, reject) => setTimeout(() => reject(new Error(`${main} did not start in ${WORKER_START_S} s: ${err}`)), WORKER_START_S * 1000)),
  ]);
  return {
    pid: child.pid ?? -1,
    exited,
    stderr: () => err,
    signal: (sig = 'SIGTERM') => {
      if (child.exitCode === null && child.signalCode === null) child.kill(sig);
    },
  };
}

/**
 * The pid of the worker process holding the lease on heavy message `messageId` (lease owner
 * `<host>/<pid>/<n>`, process/lease.ts), polled until there is one not among `notAmong`.
 */
export async function leaseHolder(world: TestWorld, messageId: string, notAmong: readonly number[] = []): Promise<number> {
  return until(async () => {
    const [m] = await rows<{ owner: string | null }>(world.engine.db, sql`select lease_owner as owner from messages where id = ${messageId}`);
    const pid = m?.owner ? Number(m.owner.split('/')[1]) : undefined;
    return pid !== undefined && !notAmong.includes(pid) ? pid : undefined;
  }, 'a lease owner');
}

/** Stops worker processes: SIGCONT (in case one is frozen), then SIGKILL, and waits for them to exit. */
export async function stopWorkers(workers: readonly WorkerProcess[]): Promise<void> {
  for (const w of workers) {
    w.signal('SIGCONT');
    w.signal('SIGKILL');
  }
  await Promise.all(workers.map((w) => w.exited));
}

/** How exactly a run went, from the database: every figure the chaos table prints. */
export interface Exactness {
  /** Messages sent (the `filtered` trail rows of dropped parts are not messages). */
  published: number;
  delivered: number;
  done: number;
  /** Open, dead, lost or cancelled messages. */
  notDone: number;
  /** Join rows that fired more than once, i.e. more output messages than fired joins. */
  duplicateJoins: number;
  /** Joins not fired. */
  unfiredJoins: number;
  /** Dead-lettered messages (a `done` run must have none). */
  dead: number;
}

/** Reads {@link Exactness} for a run straight from the tables. */
export async function exactness(db: Queryable, runId: string): Promise<Exactness> {
  const [m] = await rows<{ published: number; delivered: number; done: number; dead: number }>(
    db,
    sql`select count(*)::int as published, count(*) filter (where attempts > 0)::int as delivered,
               count(*) filter (where status = 'done')::int as done,
               count(*) filter (where status = 'dead')::int as dead
          from messages where run_id = ${runId} and status <> 'filtered'`,
  );
  // A fired join publishes one output per outgoing channel, from the part that completed it; more
  // outputs from a combine member than fired joins × channels would be a join that fired twice.
  const [j] = await rows<{ dup: number; unfired: number }>(
    db,
    sql`with fired as (select member, count(*) filter (where fired_at is not null) as n
                         from joins where run_id = ${runId} group by member),
             outs as (select p.member, count(*) as n, count(distinct c.channel) as channels
                        from messages c join messages p on p.id = c.parent_id
                       where c.run_id = ${runId} and p.member in (select member from fired)
                       group by p.member)
        select coalesce(sum(greatest(o.n - f.n * o.channels, 0)), 0)::int as dup,
               (select count(*)::int from joins where run_id = ${runId} and fired_at is null) as unfired
          from outs o join fired f using (member)`,
  );
  const published = m?.published ?? 0;
  return {
    published,
    delivered: m?.delivered ?? 0,
    done: m?.done ?? 0,
    notDone: published - (m?.done ?? 0),
    duplicateJoins: j?.dup ?? 0,
    unfiredJoins: j?.unfired ?? 0,
    dead: m?.dead ?? 0,
  };
}

/**
 * Asserts that a run ended `done` exactly, read straight from the tables: the run row says `done`,
 * every message is done (none open, dead, lost or cancelled), no join is left unfired and none fired
 * twice. Every test that expects `done` goes through here, so a finalizer that counts a run done
 * too early (a dead message, an unfired join) fails them all.
 * @returns the run's {@link Exactness}.
 */
export async function expectExactDone(db: Queryable, runId: string): Promise<Exactness> {
  const [run] = await rows<{ status: string }>(db, sql`select status from runs where id = ${runId}`);
  const ex = await exactness(db, runId);
  expect({ status: run?.status, ...ex }).toMatchObject({ status: 'done', notDone: 0, dead: 0, duplicateJoins: 0, unfiredJoins: 0 });
  return ex;
}

/** A private redis-server a test starts (never the shared one), on its own port and directory. */
export interface OwnRedis {
  readonly url: string;
  /** SIGKILLs the server (appendfsync always keeps every acknowledged write) and waits for it. */
  kill(): Promise<void>;
  /** Starts it again on the same port and directory (the AOF is replayed). */
  restart(): Promise<void>;
  /** SIGSTOPs the server: connections open but nothing answers, as on a machine too loaded to serve. */
  pause(): void;
  /** SIGCONTs a paused server. */
  resume(): void;
  /** Kills it and removes its directory. */
  close(): Promise<void>;
}

/** Starts `redis-server --port <port> <args…>` in a fresh temporary directory and waits for PING. */
export async function startOwnRedis(port: number, args: readonly string[] = []): Promise<OwnRedis> {
  const dir = mkdtempSync(join(tmpdir(), 'trellis-redis-'));
  const url = `redis://127.0.0.1:${port}`;
  let proc: ChildProcess | undefined;
  let exited: Promise<unknown> = Promise.resolve();
  const start = async () => {
    const p = spawn('redis-server', ['--port', String(port), '--dir', dir, '--save', '', ...args], { stdio: 'ignore' });
    proc = p;
    exited = new Promise((r) => p.once('exit', r));
    for (let i = 0; ; i++) {
      const probe = new Redis(url, { lazyConnect: true, retryStrategy: () => null, maxRetriesPerRequest: 0 });
      probe.on('error', () => undefined);
      try {
        await probe.connect();
        if ((await probe.ping()) === 'PONG') return;
      } catch {
        if (i > 100) throw new Error(`redis-server on port ${port} did not start`);
        await new Promise((r) => setTimeout(r, 100));
      } finally {
        probe.disconnect();
      }
    }
  };
  const kill = async () => {
    proc?.kill('SIGKILL');
    await exited;
  };
  await start();
  return {
    url,
    kill,
    restart: start,
    pause: () => proc?.kill('SIGSTOP'),
    resume: () => proc?.kill('SIGCONT'),
    async close() {
      proc?.kill('SIGCONT');
      await kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Epoch ms of every time BullMQ handed job `jobId` (a message id) of `pool` to a worker, read from
 * the queue's event stream (its entry ids are ms timestamps). One entry per delivery attempt.
 */
export async function activeEvents(prefix: string, pool: string, jobId: string, redisUrl = REDIS_URL): Promise<number[]> {
  const redis = new Redis(redisUrl);
  try {
    const events = await redis.xrange(`${prefix}:${queueName(pool)}:events`, '-', '+');
    return events
      .filter(([, f]) => f[f.indexOf('event') + 1] === 'active' && f[f.indexOf('jobId') + 1] === jobId)
      .map(([id]) => Number(id.split('-')[0]));
  } finally {
    redis.disconnect();
  }
}
