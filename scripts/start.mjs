// `npm start`: installs, builds, migrates, seeds the example meshes and starts Trellis
// (web + orchestrator + worker). Embedded PGlite under .data/ unless DATABASE_URL is set.
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { ensureInstalled, ensureRedis, launch, root, run, signalForChildren, signInLine, step, stopRedisSync } from './lib.mjs';

process.env.NEXT_TELEMETRY_DISABLED = '1';
ensureInstalled();
// The embedded database with no REDIS_URL runs the in-process bus (one process, no Redis needed);
// REDIS_URL set or Postgres mode uses BullMQ on Redis, which every process of the install shares.
const inProcessBus = !process.env.DATABASE_URL && !process.env.REDIS_URL?.trim();
const redis = inProcessBus ? { started: false } : await ensureRedis({ persist: true });
// A redis-server started here is stopped when this process ends, however it ends; one that was
// running before is left alone.
if (redis.started) {
  process.on('exit', () => {
    console.log(`Stopping the redis-server started on ${redis.host}:${redis.port}`);
    stopRedisSync(redis.host, redis.port);
  });
}

// Its own files (the NextAuth secret, the generated admin password) live beside the embedded
// database: in .data/, or in the folder holding TRELLIS_DATA_DIR when that is set.
// The folder is private to this user (0700): it holds the database and these secrets. The project's
// own .data/ is tightened when it exists already; a folder TRELLIS_DATA_DIR sits in is only made so.
const dataDir = process.env.TRELLIS_DATA_DIR ? path.dirname(path.resolve(process.env.TRELLIS_DATA_DIR)) : path.join(root, '.data');
mkdirSync(dataDir, { recursive: true, mode: 0o700 });
if (!process.env.TRELLIS_DATA_DIR) chmodSync(dataDir, 0o700);
const secretFile = path.join(dataDir, 'nextauth-secret');
if (!process.env.NEXTAUTH_SECRET) {
  if (!existsSync(secretFile)) writeFileSync(secretFile, randomBytes(32).toString('hex'), { mode: 0o600 });
  process.env.NEXTAUTH_SECRET = readFileSync(secretFile, 'utf8').trim();
}
const port = process.env.PORT ?? '3000';
process.env.NEXTAUTH_URL ??= `http://localhost:${port}`;
process.env.TRELLIS_ADMIN_EMAIL ??= 'admin@trellis.local';
// Without TRELLIS_ADMIN_PASSWORD a random one is kept in .data/admin-password (readable only by
// you); the banner names the file, never the password.
const passwordFile = path.join(dataDir, 'admin-password');
const generatedPassword = !process.env.TRELLIS_ADMIN_PASSWORD;
if (generatedPassword) {
  if (!existsSync(passwordFile)) writeFileSync(passwordFile, randomBytes(12).toString('base64url'), { mode: 0o600 });
  process.env.TRELLIS_ADMIN_PASSWORD = readFileSync(passwordFile, 'utf8').trim();
}
// Only this machine can reach Trellis unless TRELLIS_HOST says otherwise (e.g. 0.0.0.0).
const host = process.env.TRELLIS_HOST || '127.0.0.1';

step('Building the web app');
run('npx', ['turbo', 'run', 'build', '--filter=@trellis/web', '--output-logs=errors-only']);

step('Migrating the database and seeding the example meshes');
// prepare.ts reports whether the generated password is the admin's, for the banner below.
const passwordReport = path.join(dataDir, `.admin-password-check-${process.pid}`);
run('npx', ['tsx', 'scripts/prepare.ts'], { env: { ...process.env, ...(generatedPassword ? { TRELLIS_ADMIN_PASSWORD_REPORT: passwordReport } : {}) } });
let passwordInForce;
if (generatedPassword && existsSync(passwordReport)) {
  passwordInForce = JSON.parse(readFileSync(passwordReport, 'utf8')).inForce === true;
  rmSync(passwordReport, { force: true });
}

// Node runs each process itself (no npx wrapper in between), so SIGTERM reaches the real server and
// the embedded database is released when Trellis stops.
const requireFrom = createRequire(path.join(root, 'apps', 'web', 'package.json'));
const nextCli = requireFrom.resolve('next/dist/bin/next');
const tsxCli = createRequire(path.join(root, 'package.json')).resolve('tsx/cli');
const external = Boolean(process.env.DATABASE_URL);
const children = [];
if (external) {
  // Postgres: the orchestrator and a worker pool run as their own processes.
  children.push(launch(process.execPath, [tsxCli, 'workers/orchestrator/src/main.ts'], {}));
  // One worker process serves every pool saved meshes name (members on `agents` or other named
  // pools included), so no run waits for a pool nobody serves.
  children.push(launch(process.execPath, [tsxCli, 'workers/worker/src/main.ts'], { TRELLIS_POOLS: '*' }));
  // The MCP, A2A, event-mesh and inbound-mail entries, when the admin configured them (docs/entries.md).
  if (process.env.TRELLIS_ENTRIES_CONFIG) children.push(launch(process.execPath, [tsxCli, 'packages/entries/src/main.ts'], {}));
}
// Embedded PGlite is single-process, so the web server hosts the orchestrator and worker itself.
children.push(
  launch(
    process.execPath,
    [nextCli, 'start', '-p', port, '-H', host],
    { TRELLIS_ENGINE: external ? 'external' : 'in-process', TRELLIS_ROOT: root },
    path.join(root, 'apps', 'web'),
  ),
);

console.log(
  inProcessBus
    ? '\nBus: in-process (embedded database, no REDIS_URL); set REDIS_URL to use Redis instead'
    : `\nBus: Redis at ${redis.host}:${redis.port}`,
);
const shownUrl = `http://${host === '127.0.0.1' ? 'localhost' : host}:${port}`;
console.log(`\nTrellis is starting on ${shownUrl}`);
console.log(signInLine({ email: process.env.TRELLIS_ADMIN_EMAIL, generated: generatedPassword, inForce: passwordInForce, passwordFile: path.relative(root, passwordFile) }));

// Ctrl-C or SIGTERM is a normal stop: the children drain, their exit codes (130 after SIGINT) are
// not failures, and this process exits 0 once all have exited. Ctrl-C (SIGINT) already reached the
// children from the terminal, so it is not passed on (a second signal would make them exit without
// draining); SIGTERM is (signalForChildren). A child dying on its own stops the others and sets the exit code.
let stopping = false;
let failed = false;
let running = children.length;
const stop = (signal = 'SIGTERM') => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill(signal);
};
const onSignal = (signal) => {
  if (!stopping) console.log('\nStopping Trellis…');
  stopping = true;
  const forward = signalForChildren(signal);
  if (forward) stop(forward);
};
process.on('SIGINT', onSignal);
process.on('SIGTERM', onSignal);
for (const c of children) {
  c.on('exit', (code, signal) => {
    running -= 1;
    // A child can see the Ctrl-C before this process does: its 130/143 or SIGINT/SIGTERM is a stop too.
    if (!stopping && (signal === 'SIGINT' || signal === 'SIGTERM' || code === 130 || code === 143)) onSignal('SIGTERM');
    if (!stopping && (signal || (code !== null && code !== 0))) {
      console.error(`\u2717 a Trellis process exited with ${signal ?? `code ${code}`}; stopping the others`);
      process.exitCode = code || 1;
      failed = true;
      stopping = true;
      stop();
    }
    if (running === 0) {
      if (!failed) {
        console.log('Trellis stopped.');
        process.exitCode = 0;
      }
      process.exit();
    }
  });
}

// "ready" only once the server answers: /api/health is 200 when the database (and Redis, or the
// in-process bus) is open and the engine runs. Polled every 500 ms while the children live.
const healthUrl = `http://${host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host}:${port}/api/health`;
(async () => {
  for (;;) {
    if (stopping) return;
    const status = await fetch(healthUrl, { signal: AbortSignal.timeout(5000) }).then((r) => r.status, () => 0);
    if (status === 200) {
      console.log(`\nTrellis is ready on ${shownUrl}`);
      return;
    }
    await new Promise((r) => setTimeout(r, 500));
  }
})();
