// Starts the built web app for the end-to-end specs: a fresh embedded database in a temporary
// directory, its own BullMQ prefix, and a known admin. Usage: node server.mjs <port>
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const port = process.argv[2] ?? '3211';
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dataDir = mkdtempSync(path.join(tmpdir(), 'trellis-e2e-'));

const child = spawn('npx', ['next', 'start', '-p', port, '-H', '127.0.0.1'], {
  cwd: path.join(root, 'apps', 'web'),
  stdio: 'inherit',
  env: {
    ...process.env,
    DATABASE_URL: '',
    TRELLIS_DATA_DIR: dataDir,
    TRELLIS_QUEUE_PREFIX: `e2e-${process.pid}`,
    TRELLIS_ENGINE: 'in-process',
    TRELLIS_ROOT: root,
    TRELLIS_ADMIN_EMAIL: 'admin@trellis.local',
    TRELLIS_ADMIN_PASSWORD: 'e2e-password',
    NEXTAUTH_SECRET: 'e2e-secret-not-for-production',
    NEXTAUTH_URL: `http://127.0.0.1:${port}`,
    NEXT_TELEMETRY_DISABLED: '1',
  },
});
const stop = () => child.kill('SIGTERM');
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
child.on('exit', (code) => {
  rmSync(dataDir, { recursive: true, force: true });
  process.exit(code ?? 0);
});
