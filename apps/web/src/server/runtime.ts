/**
 * The process-wide Trellis runtime: the database, the engine handle and (unless TRELLIS_ENGINE=external)
 * the in-process orchestrator and worker. Kept on `globalThis` because Next.js bundles instrumentation,
 * route handlers and pages separately: module state would give each its own database, and PGlite
 * allows one opener per data directory. The engine's own process-wide state (its workers'
 * heartbeats, the metrics registry, the drain flag) is kept per process the same way
 * (@trellis/engine kernel/process-singleton.ts). Loading the engine unbundled instead
 * (serverExternalPackages) is not open to it: the workspace packages ship TypeScript source.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Db, DbHandle } from '@trellis/db/client';
import { loadEngineEnv, REPO_ROOT } from '@trellis/engine/env';
import { seedExampleMeshes } from '@trellis/engine/meshes/seed-examples';
import { processLogger } from '@trellis/engine/log';
import { boot, closeOnSignal } from '@trellis/engine/runtime/boot';
import type { Engine } from '@trellis/engine/engine';
import { startInProcess } from '@trellis/engine/runtime/in-process';
import { reportGaugesOf } from '@trellis/engine/runtime/metrics-source';
import { tracingFromEnv } from '@trellis/engine/runtime/tracing';
import { ensureAdmin } from '@trellis/engine/users/ensure-admin';
import { checkStartupSafety } from '@trellis/engine/users/startup-safety';
import { rawEnv, webEnv, type WebEnv } from '../env';

export interface TrellisRuntime {
  db: Db;
  /** The open database itself (its kind, snapshots for backups). */
  handle: DbHandle;
  engine: Engine;
  /** `in-process` when this server also runs the orchestrator and a worker. */
  engineMode: 'in-process' | 'external';
  /** TRELLIS_METRICS_TOKEN: the bearer token /api/metrics asks for, when set. */
  metricsToken: string | undefined;
  /** Stops the engine (draining its worker until `deadline` aborts, see runtime/worker.ts) and closes the database. */
  close(deadline?: AbortSignal): Promise<void>;
}

declare global {
  var __trellis: Promise<TrellisRuntime> | undefined;
}

/**
 * The runtime, started on first use. A failed start (database or Redis unreachable) is forgotten, so
 * the next request tries again and the server recovers once the service is back, without a restart.
 */
export function getRuntime(): Promise<TrellisRuntime> {
  globalThis.__trellis ??= start().catch((err: unknown) => {
    globalThis.__trellis = undefined;
    throw err;
  });
  return globalThis.__trellis;
}

function log(message: string): void {
  process.stdout.write(`[trellis] ${message}\n`);
}

async function start(): Promise<TrellisRuntime> {
  const env = webEnv();
  const engineEnv = loadEngineEnv(rawEnv());
  const logger = processLogger(engineEnv.logFormat, false, { service: 'trellis-web' });
  const booted = await boot(engineEnv, { log: logger });
  const { handle, engine } = booted;
  log(`database: ${handle.kind === 'pglite' ? 'embedded (PGlite)' : 'postgres'}`);
  let mode = env.TRELLIS_ENGINE;
  if (mode === 'external' && handle.kind === 'pglite') {
    log('TRELLIS_ENGINE=external needs DATABASE_URL: the embedded database opens in one process only, so the engine runs here');
    mode = 'in-process';
  }
  let running: ReturnType<typeof startInProcess> | undefined;
  try {
    await firstStart(handle.db, env, engineEnv.dataDir);
    if (mode === 'in-process') {
      running = startInProcess(engine, { concurrency: engineEnv.concurrency });
      log('engine: orchestrator and worker running in this process');
    }
  } catch (err) {
    await booted.close().catch(() => undefined);
    throw err;
  }
  // /api/metrics reads queue depth and runs by status from this engine; steps are traced when
  // OTEL_EXPORTER_OTLP_ENDPOINT is set (they run here in the in-process mode).
  reportGaugesOf(engine);
  const tracing = tracingFromEnv(engineEnv, 'trellis-web');
  const runtime: TrellisRuntime = {
    db: handle.db,
    handle,
    engine,
    engineMode: mode,
    metricsToken: engineEnv.metricsToken,
    async close(deadline) {
      await running?.close(deadline).catch(() => undefined);
      await tracing?.close().catch(() => undefined);
      await booted.close();
    },
  };
  // Stop the worker and close the database (PGlite flushes on close) before the process exits.
  closeOnSignal((deadline) => runtime.close(deadline), logger, { drainMs: engineEnv.drainMs });
  return runtime;
}

async function firstStart(db: Db, env: WebEnv, dataDir: string): Promise<void> {
  await checkStartupSafety(db, { development: env.NODE_ENV === 'development', adminPassword: env.TRELLIS_ADMIN_PASSWORD });
  const admin = await ensureAdmin(db, { email: env.TRELLIS_ADMIN_EMAIL, password: env.TRELLIS_ADMIN_PASSWORD });
  if (admin.created) {
    log(`created the first admin: ${admin.email}`);
    if (admin.generatedPassword) {
      // Never in the log: written to a file only its owner can read.
      const file = join(dirname(dataDir), 'initial-admin-password');
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, `${admin.generatedPassword}\n`, { mode: 0o600 });
      log(`TRELLIS_ADMIN_PASSWORD was not set; a generated password is in ${file} (delete the file after signing in)`);
    }
  }
  if (env.TRELLIS_SEED_EXAMPLES === '0' || env.TRELLIS_SEED_EXAMPLES === 'false') return;
  const dir = examplesDir(env.TRELLIS_ROOT);
  if (!dir) return log('examples/meshes not found; set TRELLIS_ROOT to the repository root to seed the examples');
  const report = await seedExampleMeshes(db, dir);
  if (report.seeded.length) log(`seeded example meshes: ${report.seeded.join(', ')}`);
  for (const r of report.refused) log(`example ${r.file} refused: ${r.message}`);
}

/** `<root>/examples/meshes`, from TRELLIS_ROOT or by walking up from the engine's root and the cwd. */
function examplesDir(root: string | undefined): string | undefined {
  const starts = root ? [root] : [REPO_ROOT, process.cwd()];
  for (const start of starts) {
    for (let dir = start; ; dir = dirname(dir)) {
      const candidate = join(dir, 'examples', 'meshes');
      if (existsSync(candidate)) return candidate;
      if (dirname(dir) === dir || root) break;
    }
  }
  return undefined;
}
