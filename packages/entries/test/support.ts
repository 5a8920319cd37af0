/**
 * Test support for the entries: a published mesh, people with tokens, and the HTTP bridges on an
 * ephemeral port, on the engine harness's world (own database and queue prefix per test).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { addUser } from '@trellis/engine/users/add-user';
import { createPersonalToken } from '@trellis/engine/tokens/create-token';
import { setMeshPublished } from '@trellis/engine/meshes/publish-mesh';
import { SYSTEM_ACTOR } from '@trellis/engine/audit/append';
import type { Engine } from '@trellis/engine/engine';
import { PG_ADMIN_URL, REDIS_URL, saveOrThrow, WORD_SPLIT, type TestWorld } from '../../engine/test/harness';
import { serveFetch } from '../src/http/node-adapter';
import { bridgeHandler } from '../src/http/routes';

const MAIN = fileURLToPath(new URL('../src/main.ts', import.meta.url));

/** A token of a new person with `role`, scoped as wide as the role allows (or `scope`). */
export async function tokenFor(engine: Engine, role: 'admin' | 'designer' | 'operator' | 'viewer', scope?: string): Promise<string> {
  const email = `${role}-${Math.random().toString(36).slice(2, 8)}@x.test`;
  const user = await addUser(engine.db, { email, role, password: 'pw-for-tests-1' });
  const wide = { admin: 'admin', designer: 'run', operator: 'operate', viewer: 'read' }[role];
  const created = await createPersonalToken(engine.db, { id: user.id, email, role }, { name: 'test', scope: scope ?? wide, expiresInDays: 1 });
  return created.token;
}

/** Saves the word-split self-test mesh and publishes it; returns its id. */
export async function publishedWordSplit(world: TestWorld): Promise<string> {
  const meshId = await saveOrThrow(world, JSON.parse(WORD_SPLIT) as unknown);
  await setMeshPublished(world.engine.db, { meshId, published: true, actor: SYSTEM_ACTOR });
  return meshId;
}

/** The HTTP bridges on 127.0.0.1, port 0; `close` stops them. */
export async function serveBridges(engine: Engine, waitMs = 20_000): Promise<{ url: string; close(): Promise<void> }> {
  const { server, port } = await serveFetch(bridgeHandler(engine, { waitMs, publicUrl: (req) => new URL(req.url).origin }), { host: '127.0.0.1', port: 0, maxBodyBytes: 1024 * 1024 });
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** An entries process started by a test (`node --import tsx packages/entries/src/main.ts`). */
export interface EntriesProcess {
  readonly exited: Promise<number | string>;
  stderr(): string;
  kill(): void;
}

/**
 * Starts the entries process on the world's Postgres database and queue prefix with `config` as its
 * TRELLIS_ENTRIES_CONFIG; `env` adds settings (TRELLIS_TEST_ENTRY_CRASH). Resolves once it is ready.
 */
export async function spawnEntries(world: TestWorld, config: unknown, env: Record<string, string> = {}): Promise<EntriesProcess> {
  if (!world.databaseName) throw new Error('an entries process needs a Postgres world');
  const dir = mkdtempSync(join(tmpdir(), 'trellis-entries-'));
  const file = join(dir, 'entries.json');
  writeFileSync(file, JSON.stringify(config));
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${world.databaseName}`;
  // `node --import tsx`, not the tsx wrapper, so a SIGKILL the process sends itself ends it at once.
  const child = spawn(process.execPath, ['--import', 'tsx', MAIN], {
    cwd: fileURLToPath(new URL('../../../', import.meta.url)),
    env: { ...process.env, DATABASE_URL: url.toString(), REDIS_URL, TRELLIS_QUEUE_PREFIX: world.prefix, TRELLIS_ENTRIES_CONFIG: file, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  child.stderr.on('data', (b: Buffer) => (err += b.toString()));
  const exited = new Promise<number | string>((resolve) => child.once('exit', (code, sig) => resolve(code ?? sig ?? -1)));
  const ready = new Promise<void>((resolve) => child.stdout.on('data', (b: Buffer) => b.toString().includes('"ready":true') && resolve()));
  await Promise.race([
    ready,
    exited.then((c) => {
      throw new Error(`the entries process exited (${c}) before it was ready: ${err}`);
    }),
    new Promise((_, reject) => setTimeout(() => reject(new Error(`the entries process was not ready in 120 s: ${err}`)), 120_000)),
  ]);
  return { exited, stderr: () => err, kill: () => child.exitCode === null && child.signalCode === null && child.kill('SIGKILL') };
}
