// `npm test`: installs what the tests need, then runs every test: lint, typecheck, unit and integration
// tests against the real Postgres and Redis, the engine's bus-relevant integration tests again on the
// in-process bus, and the Playwright end-to-end specs in Debian Chromium.
import { existsSync } from 'node:fs';
import { ensureInstalled, ensureRedis, has, portOpen, run, step } from './lib.mjs';

const started = Date.now();
process.env.NEXT_TELEMETRY_DISABLED = '1';
ensureInstalled();

const chromium = process.env.TRELLIS_CHROMIUM ?? '/usr/bin/chromium';
if (!existsSync(chromium)) {
  if (process.getuid?.() === 0 && has('apt-get')) {
    step('Installing Debian Chromium for the end-to-end tests');
    run('apt-get', ['update', '-qq']);
    run('apt-get', ['install', '-y', '-qq', 'chromium'], { env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  } else {
    console.error(`\u2717 Chromium not found at ${chromium}: install it (apt-get install chromium) or set TRELLIS_CHROMIUM.`);
    process.exit(2);
  }
}

await ensureRedis({ persist: false });
const pgUrl = new URL(process.env.TRELLIS_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
if (!(await portOpen(pgUrl.hostname, Number(pgUrl.port || 5432)))) {
  console.error(
    `\u2717 Postgres is not reachable at ${pgUrl.host}. Integration tests need a real Postgres: start one ` +
      '(pg_ctlcluster <version> main start, or docker compose -f docker/compose.yml up postgres) ' +
      'or set TRELLIS_TEST_DATABASE_URL to a server where the user may create databases.',
  );
  process.exit(2);
}

step('Lint and typecheck');
run('npx', ['turbo', 'run', 'lint', 'typecheck', '--concurrency=2', '--output-logs=errors-only']);

step('Unit and integration tests (real Postgres and Redis)');
run('npx', ['turbo', 'run', 'test', '--concurrency=1', '--output-logs=full']);

// The bus matrix's second column: the engine's bus-relevant integration tests again on the
// in-process bus (which tests, and why the others are left out: packages/engine/vitest.local-bus.config.ts).
step('Engine integration tests on the in-process bus (desktop mode)');
const matrixStarted = Date.now();
run('npm', ['run', 'test:local-bus', '--workspace', '@trellis/engine']);
console.log(`  the in-process bus column took ${Math.round((Date.now() - matrixStarted) / 1000)} s`);

step('End-to-end tests in Chromium');
// Built with REDIS_URL and DATABASE_URL unset (turbo hashes both): the no-Redis start spec
// (e2e/desktop/no-redis-start.spec.ts) runs `npm start` that way, and its build step is then a cache hit.
const buildEnv = { ...process.env };
delete buildEnv.REDIS_URL;
delete buildEnv.DATABASE_URL;
run('npx', ['turbo', 'run', 'build', '--filter=@trellis/web', '--output-logs=errors-only'], { env: buildEnv });
run('npm', ['run', 'e2e', '--workspace', '@trellis/e2e']);

console.log(`\n\u2713 every test passed in ${Math.round((Date.now() - started) / 1000)} s`);
