// Encryption in transit: `trellis run` against a TLS-only Redis (rediss://) and a Postgres that accepts
// only hostssl connections (sslmode=verify-full), both serving certificates of a CA made here.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const PG_BIN = '/usr/lib/postgresql/15/bin';
const work = mkdtempSync(join(tmpdir(), 'trellis-tls-'));
const pgDir = join(work, 'pg');
let redis: ChildProcess | undefined;
let redisPort = 0;
let pgPort = 0;

function run(cmd: string, args: string[], asPostgres = false): string {
  // Postgres refuses to run as root; tests on CI run as root, so the cluster belongs to `postgres`.
  const [c, a] = asPostgres && userInfo().uid === 0 ? ['runuser', ['-u', 'postgres', '--', cmd, ...args]] : [cmd, args];
  const r = spawnSync(c, a, { encoding: 'utf8', cwd: work });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed: ${r.stderr}${r.stdout}`);
  return r.stdout;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

/** A CA (key + self-signed certificate) and a server certificate for localhost / 127.0.0.1 signed by it. */
function makeCa(name: string): void {
  run('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', `${name}.key`, '-out', `${name}.crt`, '-days', '1', '-subj', `/CN=Trellis test ${name}`]);
}

function trellis(args: string[], env: Record<string, string>) {
  const base: Record<string, string | undefined> = { ...process.env };
  delete base.NODE_EXTRA_CA_CERTS;
  const r = spawnSync(join(root, 'node_modules/.bin/tsx'), [join(root, 'packages/cli/src/main.ts'), ...args], {
    cwd: work,
    encoding: 'utf8',
    env: { ...base, TRELLIS_QUEUE_PREFIX: `clitls${process.pid}`, ...env },
    timeout: 50_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const databaseUrl = (query: string) => `postgres://postgres@localhost:${pgPort}/postgres${query}`;
const verifyFull = (ca: string) => `?sslmode=verify-full&sslrootcert=${join(work, ca)}`;

beforeAll(async () => {
  writeFileSync(join(work, 'input.txt'), 'one two\nthree\n\fpage two\n');
  makeCa('ca');
  makeCa('other-ca');
  run('openssl', ['req', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=localhost']);
  writeFileSync(join(work, 'san.cnf'), 'subjectAltName=DNS:localhost,IP:127.0.0.1\n');
  run('openssl', ['x509', '-req', '-in', 'server.csr', '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'server.crt', '-days', '1', '-extfile', 'san.cnf']);

  redisPort = await freePort();
  // --port 0: no plain-text listener at all, so only a TLS client gets an answer.
  const server = spawn(
    'redis-server',
    ['--port', '0', '--tls-port', String(redisPort), '--tls-cert-file', 'server.crt', '--tls-key-file', 'server.key', '--tls-ca-cert-file', 'ca.crt',
      '--tls-auth-clients', 'no', '--save', '', '--appendonly', 'no'],
    { cwd: work, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  redis = server;
  const ready = new Promise<void>((resolve, reject) => {
    let out = '';
    server.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('Ready to accept connections')) resolve();
    });
    server.once('exit', (code) => reject(new Error(`redis-server exited ${code}: ${out}`)));
  });

  // The cluster's files must belong to the user it runs as, and that user must reach them.
  chmodSync(work, 0o755);
  mkdirSync(pgDir, { mode: 0o700 });
  for (const f of ['server.crt', 'server.key', 'ca.crt']) copyFileSync(join(work, f), join(pgDir, f));
  chmodSync(join(pgDir, 'server.key'), 0o600);
  if (userInfo().uid === 0) {
    const ids = run('id', ['-u', 'postgres']).trim();
    const gid = run('id', ['-g', 'postgres']).trim();
    for (const f of ['', 'server.crt', 'server.key', 'ca.crt']) chownSync(join(pgDir, f), Number(ids), Number(gid));
  }
  run(join(PG_BIN, 'initdb'), ['-D', join(pgDir, 'data'), '-U', 'postgres', '-A', 'trust', '--no-sync'], true);
  // TLS or nothing: a client that does not encrypt finds no pg_hba line that lets it in.
  writeFileSync(join(pgDir, 'data/pg_hba.conf'), 'hostssl all all 127.0.0.1/32 trust\nhostssl all all ::1/128 trust\n');
  pgPort = await freePort();
  const opts = [`-p ${pgPort}`, `-k ${pgDir}`, '-c listen_addresses=localhost', '-c fsync=off', '-c ssl=on',
    `-c ssl_cert_file=${pgDir}/server.crt`, `-c ssl_key_file=${pgDir}/server.key`, `-c ssl_ca_file=${pgDir}/ca.crt`].join(' ');
  run(join(PG_BIN, 'pg_ctl'), ['-D', join(pgDir, 'data'), '-w', '-l', join(pgDir, 'log'), '-o', opts, 'start'], true);
  await ready;
}, 40_000);

afterAll(() => {
  redis?.kill('SIGKILL');
  try {
    run(join(PG_BIN, 'pg_ctl'), ['-D', join(pgDir, 'data'), '-m', 'immediate', 'stop'], true);
  } catch {
    // never started
  }
  rmSync(work, { recursive: true, force: true });
});

describe('encryption in transit', () => {
  it('runs a mesh over rediss:// and Postgres with sslmode=verify-full (exact output)', () => {
    const r = trellis(['run', join(root, 'examples/meshes/word-split.json'), '--input', join(work, 'input.txt'), '--output', join(work, 'out.txt'), '--json'], {
      REDIS_URL: `rediss://localhost:${redisPort}`,
      NODE_EXTRA_CA_CERTS: join(work, 'ca.crt'),
      DATABASE_URL: databaseUrl(verifyFull('ca.crt')),
    });
    expect(r.stderr).not.toMatch(/trellis:/);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ status: 'done' });
    expect(readFileSync(join(work, 'out.txt'), 'utf8')).toBe('one two\nthree\n\fpage two\n');
  }, 50_000);

  it('refuses an untrusted Redis or Postgres certificate and a plain-text Postgres connection, naming the setting', () => {
    const input = ['run', join(root, 'examples/meshes/word-split.json'), '--input', join(work, 'input.txt')];
    const goodDb = databaseUrl(verifyFull('ca.crt'));

    const redisUntrusted = trellis(input, { REDIS_URL: `rediss://localhost:${redisPort}`, NODE_EXTRA_CA_CERTS: join(work, 'other-ca.crt'), DATABASE_URL: goodDb });
    expect(redisUntrusted.code).toBe(2);
    expect(redisUntrusted.stderr).toMatch(/cannot reach Redis at rediss:\/\/localhost:\d+.*certificate/);
    expect(redisUntrusted.stderr).toContain('NODE_EXTRA_CA_CERTS');
    expect(redisUntrusted.stderr).toContain('REDIS_URL');

    const env = { REDIS_URL: `rediss://localhost:${redisPort}`, NODE_EXTRA_CA_CERTS: join(work, 'ca.crt') };
    const pgUntrusted = trellis(input, { ...env, DATABASE_URL: databaseUrl(verifyFull('other-ca.crt')) });
    expect(pgUntrusted.code).toBe(2);
    expect(pgUntrusted.stderr).toMatch(/cannot reach the database at .*certificate/);
    expect(pgUntrusted.stderr).toContain('sslrootcert= in DATABASE_URL');

    const pgPlain = trellis(input, { ...env, DATABASE_URL: databaseUrl('') });
    expect(pgPlain.code).toBe(2);
    expect(pgPlain.stderr).toMatch(/no pg_hba.conf entry .* no encryption.*DATABASE_URL/);
  }, 50_000);
});
