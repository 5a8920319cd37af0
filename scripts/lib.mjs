// Shared helpers for the two top-level commands (`npm start`, `npm test`): dependency-free on purpose,
// because they run before `npm install` has happened on a fresh clone.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root. */
export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Prints a step heading. */
export function step(text) {
  console.log(`\n\u25b8 ${text}`);
}

/** Runs a command in the foreground; exits the process with its code when it fails. */
export function run(cmd, args, options = {}) {
  const r = spawnSync(cmd, args, { stdio: 'inherit', cwd: root, ...options });
  if (r.status !== 0) {
    console.error(`\u2717 ${cmd} ${args.join(' ')} failed (exit ${r.status ?? r.signal})`);
    process.exit(r.status ?? 1);
  }
}

/** Installs the workspace dependencies when node_modules is missing or older than package-lock.json. */
export function ensureInstalled() {
  const marker = path.join(root, 'node_modules', '.package-lock.json');
  const lock = path.join(root, 'package-lock.json');
  if (existsSync(marker) && statSync(marker).mtimeMs >= statSync(lock).mtimeMs) return;
  step('Installing dependencies (npm ci)');
  run('npm', ['ci', '--no-audit', '--no-fund']);
}

/** Resolves true when a TCP connection to host:port opens within `ms` milliseconds. */
export function portOpen(host, port, ms = 1000) {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const done = (ok) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(ms, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/** True when `cmd` is on the PATH. */
export function has(cmd) {
  return spawnSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' }).status === 0;
}

/** Parses host and port from a redis:// URL (default 127.0.0.1:6379). */
export function redisTarget(url) {
  const u = new URL(url ?? 'redis://127.0.0.1:6379');
  return { host: u.hostname || '127.0.0.1', port: Number(u.port || 6379) };
}

/**
 * Makes sure Redis answers at REDIS_URL; starts a local `redis-server` when none answers and one is
 * installed. Exits with a clear message otherwise.
 * @returns `{ host, port, started }`: `started` is true when this call started the redis-server
 *   (so the caller may stop it with {@link stopRedisSync}), false when one was running already.
 */
export async function ensureRedis({ persist }) {
  const { host, port } = redisTarget(process.env.REDIS_URL);
  if (await portOpen(host, port)) return { host, port, started: false };
  const local = host === '127.0.0.1' || host === 'localhost';
  if (local && has('redis-server')) {
    step(`Starting redis-server on ${host}:${port}`);
    const args = ['--daemonize', 'yes', '--bind', '127.0.0.1', '--port', String(port)];
    if (persist) {
      const dir = path.join(root, '.data', 'redis');
      run('mkdir', ['-p', dir]);
      args.push('--dir', dir, '--appendonly', 'yes', '--maxmemory-policy', 'noeviction');
    } else args.push('--save', '', '--appendonly', 'no');
    run('redis-server', args);
    for (let i = 0; i < 50 && !(await portOpen(host, port)); i++) await new Promise((r) => setTimeout(r, 100));
    if (await portOpen(host, port)) return { host, port, started: true };
  }
  console.error(
    `\u2717 Redis is not reachable at ${host}:${port}. Set REDIS_URL to a running Redis, ` +
      'or install one (Debian: apt-get install redis-server; Docker: docker compose -f docker/compose.yml up redis).',
  );
  process.exit(2);
}

/**
 * Stops the Redis at host:port with SHUTDOWN (which writes its append-only file first), synchronously
 * so it also works from a process 'exit' handler: through `redis-cli` when installed, else by sending
 * the command over TCP from a short Node process. Waits up to 5 s; never throws.
 */
export function stopRedisSync(host, port) {
  if (has('redis-cli')) {
    spawnSync('redis-cli', ['-h', host, '-p', String(port), 'shutdown'], { stdio: 'ignore', timeout: 5000 });
    return;
  }
  const script =
    'const s=require("node:net").connect({host:process.argv[1],port:Number(process.argv[2])},()=>s.write("*1\\r\\n$8\\r\\nSHUTDOWN\\r\\n"));' +
    's.on("error",()=>{});s.on("close",()=>process.exit(0));setTimeout(()=>process.exit(0),4000).unref();';
  spawnSync(process.execPath, ['-e', script, host, String(port)], { stdio: 'ignore', timeout: 5000 });
}

/** Spawns a long-running child with inherited output; returns it. */
export function launch(cmd, args, env, cwd = root) {
  return spawn(cmd, args, { stdio: 'inherit', cwd, env: { ...process.env, ...env } });
}

/**
 * What `npm start` passes on to its children when it gets `signal` ('SIGINT' or 'SIGTERM'): nothing
 * for SIGINT, since Ctrl-C in the terminal reaches the whole process group, children included, and
 * a forwarded signal would be a second stop; SIGTERM for SIGTERM, which may have been sent to this
 * process alone (`kill <pid>`). A Trellis process takes a repeat within 1 s as the same stop.
 * @returns the signal to send each running child, or null to send none.
 */
export function signalForChildren(signal) {
  return signal === 'SIGTERM' ? 'SIGTERM' : null;
}

/**
 * The banner's sign-in line. `passwordFile` (relative path) is named only when the generated
 * password in it is the one in force for `email` (`inForce`, from scripts/prepare.ts); a generated
 * file whose password is not the admin's (the admin was created before, from another
 * TRELLIS_ADMIN_PASSWORD, or changed it) is said to be unused.
 * @param {{ email: string, generated: boolean, inForce: boolean | undefined, passwordFile: string }} o
 * @returns {string}
 */
export function signInLine({ email, generated, inForce, passwordFile }) {
  if (!generated) return `Sign in as ${email}`;
  if (inForce) return `Sign in as ${email} with the password in ${passwordFile} (set TRELLIS_ADMIN_PASSWORD to choose your own)`;
  return `Sign in as ${email} with that account's own password (the one in ${passwordFile} is not it: the admin was created before, with another TRELLIS_ADMIN_PASSWORD, or has changed it)`;
}
