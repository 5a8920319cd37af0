// Starts the built web app for the end-to-end specs: a fresh embedded database in a temporary
// directory, its own BullMQ prefix, and a known admin. Usage: node server.mjs <port>
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const port = process.argv[2] ?? '3211';
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dataDir = mkdtempSync(path.join(tmpdir(), 'trellis-e2e-'));
const prefix = `e2e-${process.pid}`;

// Next's own CLI as our direct child (not through npx), so stopping this script stops the server too.
const web = path.join(root, 'apps', 'web');
const nextBin = createRequire(path.join(web, 'package.json')).resolve('next/dist/bin/next');
const child = spawn(process.execPath, [nextBin, 'start', '-p', port, '-H', '127.0.0.1'], {
  cwd: web,
  stdio: 'inherit',
  env: {
    ...process.env,
    DATABASE_URL: '',
    // BullMQ on the shared Redis, as before the in-process bus existed; E2E_BUS=local runs the
    // specs on the in-process bus instead (no REDIS_URL: the desktop default).
    ...(process.env.E2E_BUS === 'local' ? { REDIS_URL: '' } : { REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379' }),
    TRELLIS_DATA_DIR: dataDir,
    TRELLIS_QUEUE_PREFIX: prefix,
    TRELLIS_ENGINE: 'in-process',
    TRELLIS_ROOT: root,
    TRELLIS_ADMIN_EMAIL: 'admin@trellis.local',
    TRELLIS_ADMIN_PASSWORD: 'e2e-password',
    NEXTAUTH_SECRET: 'e2e-secret-not-for-production',
    NEXTAUTH_URL: `http://127.0.0.1:${port}`,
    // Single sign-on against the OpenID provider e2e/auth/sso.spec.ts starts on the next port.
    TRELLIS_OIDC_ISSUER: `http://127.0.0.1:${Number(port) + 1}`,
    TRELLIS_OIDC_CLIENT_ID: 'trellis-e2e',
    TRELLIS_OIDC_CLIENT_SECRET: 'e2e-oidc-client-secret',
    TRELLIS_OIDC_NAME: 'Example ID',
    TRELLIS_OIDC_SCOPE: 'openid email profile groups',
    TRELLIS_OIDC_ROLES: 'trellis-designers=designer,trellis-operators=operator,trellis-admins=admin',
    NEXT_TELEMETRY_DISABLED: '1',
  },
});
const stop = () => child.kill('SIGTERM');
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
child.on('exit', (code) => {
  rmSync(dataDir, { recursive: true, force: true });
  void removeQueueKeys().finally(() => process.exit(code ?? 0));
});

/** Deletes this server's BullMQ keys (`<prefix>:*`) so repeated runs leave nothing in Redis. */
async function removeQueueKeys() {
  const { Redis } = createRequire(path.join(root, 'packages', 'engine', 'package.json'))('ioredis');
  const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await redis.connect();
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
      if (keys.length > 0) await redis.unlink(...keys);
      cursor = next;
    } while (cursor !== '0');
  } catch (err) {
    console.error(`[e2e] could not remove the ${prefix}:* keys from Redis: ${err instanceof Error ? err.message : err}`);
  } finally {
    redis.disconnect();
  }
}
