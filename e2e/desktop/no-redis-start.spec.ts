/**
 * `npm start` on a machine with nothing but Node: the real start path (scripts/start.mjs) with
 * redis-server and redis-cli hidden from PATH, no REDIS_URL and no DATABASE_URL, a fresh data
 * directory and a free port. It must serve on the in-process bus, let the admin sign in with the
 * generated password it wrote beside the data directory, and run word-split over REST to `done`,
 * byte for byte. It reuses the web build `npm test` made for the other specs: start.mjs's build step
 * is then a turbo cache hit (scripts/test.mjs builds with REDIS_URL and DATABASE_URL unset, as here).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, request, test, type APIRequestContext } from '@playwright/test';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const HIDDEN = /^redis-/;

/** Three pages (form feeds) of lines of words, with CRLF and LF ends, tabs and runs of spaces. */
const DOCUMENT = [1, 2, 3]
  .map((p) =>
    Array.from({ length: 12 }, (_, l) => `page ${p} line ${l}:\tsome  words to split${l % 3 === 0 ? ' \r\n' : '\n'}`).join(''),
  )
  .join('\f');

/**
 * PATH with every redis-* program gone: a directory holding one is replaced by a directory of
 * symlinks to its other entries; the others are kept as they are.
 */
function pathWithoutRedis(work: string): string {
  const dirs = (process.env.PATH ?? '').split(path.delimiter).filter(Boolean);
  return dirs
    .map((dir, i) => {
      let names: string[];
      try {
        names = readdirSync(dir);
      } catch {
        return dir;
      }
      if (!names.some((n) => HIDDEN.test(n))) return dir;
      const copy = path.join(work, `bin${i}`);
      mkdirSync(copy);
      for (const n of names) if (!HIDDEN.test(n)) symlinkSync(path.join(dir, n), path.join(copy, n));
      return copy;
    })
    .join(path.delimiter);
}

/** A TCP port nobody listens on right now. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const addr = s.address();
      s.close(() => (typeof addr === 'object' && addr ? resolve(addr.port) : reject(new Error('no port'))));
    });
  });
}

/** Whether turbo would replay the web build from its cache in `env` (else start.mjs builds it, for minutes). */
function webBuildCached(env: NodeJS.ProcessEnv): boolean {
  const dry = spawnSync('npx', ['turbo', 'run', 'build', '--filter=@trellis/web', '--dry=json'], { cwd: ROOT, env, encoding: 'utf8' });
  if (dry.status !== 0) return false;
  const plan = JSON.parse(dry.stdout) as { tasks: { taskId: string; cache: { status: string } }[] };
  return plan.tasks.find((t) => t.taskId === '@trellis/web#build')?.cache.status === 'HIT';
}

test('npm start without Redis: serves, signs in, runs word-split to done over REST', async () => {
  const work = mkdtempSync(path.join(tmpdir(), 'trellis-no-redis-'));
  const port = await freePort();
  const env: NodeJS.ProcessEnv = { ...process.env, PATH: pathWithoutRedis(work), PORT: String(port), TRELLIS_DATA_DIR: path.join(work, 'data', 'pglite') };
  for (const k of ['REDIS_URL', 'DATABASE_URL', 'TRELLIS_QUEUE_PREFIX', 'TRELLIS_ENGINE', 'TRELLIS_ADMIN_PASSWORD', 'TRELLIS_ADMIN_EMAIL', 'NEXTAUTH_SECRET', 'NEXTAUTH_URL']) delete env[k];
  // The PATH really has no Redis.
  expect(spawnSync('sh', ['-c', 'command -v redis-server || command -v redis-cli'], { env }).status).not.toBe(0);
  test.setTimeout(webBuildCached(env) ? 120_000 : 900_000);

  let out = '';
  const server: ChildProcess = spawn(process.execPath, ['scripts/start.mjs'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  server.stdout?.on('data', (b: Buffer) => (out += b.toString()));
  server.stderr?.on('data', (b: Buffer) => (out += b.toString()));
  const exited = new Promise<number | string>((resolve) => server.once('exit', (code, sig) => resolve(code ?? sig ?? -1)));
  let api: APIRequestContext | undefined;
  try {
    const base = `http://127.0.0.1:${port}`;
    await expect
      .poll(
        async () => {
          if (server.exitCode !== null) throw new Error(`npm start exited (${server.exitCode}):\n${out.slice(-3000)}`);
          return fetch(`${base}/api/health`).then((r) => r.status, () => 0);
        },
        { timeout: 600_000, intervals: [500] },
      )
      .toBe(200);
    expect(out).toContain('Bus: in-process');
    // The ready line comes only once the server answers (scripts/start.mjs polls /api/health).
    await expect.poll(() => out, { timeout: 10_000 }).toContain(`Trellis is ready on http://localhost:${port}`);
    expect(out).not.toMatch(/redis-server|Redis is not reachable/);

    await test.step('sign in with the generated password written beside the data directory', async () => {
      const passwordFile = path.join(work, 'data', 'admin-password');
      expect(existsSync(passwordFile)).toBe(true);
      const password = readFileSync(passwordFile, 'utf8').trim();
      api = await request.newContext({ baseURL: base });
      const { csrfToken } = (await (await api.get('/api/auth/csrf')).json()) as { csrfToken: string };
      const signIn = await api.post('/api/auth/callback/credentials', {
        form: { csrfToken, email: 'admin@trellis.local', password, json: 'true', callbackUrl: `${base}/meshes` },
      });
      expect(signIn.status(), await signIn.text()).toBe(200);
      const session = (await (await api.get('/api/auth/session')).json()) as { user?: { email?: string } };
      expect(session.user?.email).toBe('admin@trellis.local');
    });

    await test.step('run word-split over REST: done, every message done, the text back byte for byte', async () => {
      if (!api) throw new Error('not signed in');
      const meshes = (await (await api.get('/api/v1/meshes')).json()) as { items: { id: string; name: string }[] };
      const mesh = meshes.items.find((m) => m.name === 'word-split');
      expect(mesh, JSON.stringify(meshes)).toBeDefined();
      const started = await api.post(`/api/v1/meshes/${mesh?.id}/runs`, { data: DOCUMENT, headers: { 'content-type': 'text/plain', 'x-file-name': 'doc.txt' } });
      expect(started.status(), await started.text()).toBe(201);
      const { runId } = (await started.json()) as { runId: string };
      let answer: { status: string; ended: boolean; counts: Record<string, number>; output: { text?: string } | null } | undefined;
      for (const until = Date.now() + 60_000; !answer?.ended && Date.now() < until; ) {
        answer = (await (await api.get(`/api/v1/runs/${runId}?wait=10`)).json()) as typeof answer;
      }
      expect(answer).toMatchObject({ status: 'done', ended: true, counts: { deadLettered: 0, lost: 0, pending: 0, running: 0, cancelled: 0 } });
      expect(answer?.counts.published).toBeGreaterThan(100);
      expect(answer?.counts.done).toBe(answer?.counts.published);
      expect(answer?.output?.text).toBe(DOCUMENT);
    });
  } finally {
    await api?.dispose();
    if (server.exitCode === null && server.signalCode === null) server.kill('SIGTERM');
    await Promise.race([exited, new Promise((r) => setTimeout(r, 15_000))]);
    if (server.exitCode === null && server.signalCode === null) server.kill('SIGKILL');
    rmSync(work, { recursive: true, force: true });
  }
});
