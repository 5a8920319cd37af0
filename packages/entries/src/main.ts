/**
 * The entries process: other systems start runs through MCP, A2A, a NATS JetStream subject or
 * inbound email (configured by the admin in TRELLIS_ENTRIES_CONFIG). Runs on Postgres
 * (DATABASE_URL) next to the orchestrator and the workers; several may run. Stops on SIGTERM.
 */
import { stderrLogger } from '@trellis/engine/log';
import { describeError } from '@trellis/engine/errors';
import { boot, closeOnSignal } from '@trellis/engine/runtime/boot';
import { loadEntriesEnv } from './env';
import { startEntries } from './start-entries';

try {
  const env = loadEntriesEnv();
  if (!env.databaseUrl) throw new Error('set DATABASE_URL: the entries process shares Postgres with the workers');
  const log = stderrLogger(env.verbose);
  const booted = await boot(env, { log });
  const entries = await startEntries(booted.engine, env.entries, log, { crash: env.crash });
  const parts = [
    entries.httpPort !== undefined ? `MCP and A2A on port ${entries.httpPort}` : undefined,
    entries.events ? `${env.entries.nats?.bindings.length ?? 0} event binding(s)` : undefined,
    entries.smtpPort !== undefined ? `mail on port ${entries.smtpPort}` : undefined,
  ].filter(Boolean);
  log.warn(`entries started: ${parts.join(', ') || 'nothing configured (set TRELLIS_ENTRIES_CONFIG)'}`);
  // Test harnesses read this line for the ports.
  process.stdout.write(`${JSON.stringify({ ready: true, httpPort: entries.httpPort, smtpPort: entries.smtpPort })}\n`);
  closeOnSignal(async () => {
    await entries.close();
    await booted.close();
  }, log);
} catch (err) {
  const view = describeError(err);
  process.stderr.write(`trellis entries: ${view.code === 'internal' && err instanceof Error ? err.message : view.message}\n`);
  process.exit(2);
}
