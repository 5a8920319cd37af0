/**
 * One desktop process for the crash test (runtime/desktop-crash.integration.test.ts): boots from
 * the environment like the embedded web server does (runtime/boot.ts, so with no DATABASE_URL and
 * no REDIS_URL it runs the in-process bus), serves the orchestrator and every pool in this process,
 * and reports on stdout, one JSON object a line.
 * `start <file>`: saves word-split, starts a run on the file's bytes, prints `{ runId }`, then
 * `{ done }` (messages done so far) every 100 ms until killed or the run ends.
 * `resume <runId>`: waits for the run to end and prints `{ status }`, then exits.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { sql } from 'drizzle-orm';
import { loadEngineEnv } from '../src/kernel/env';
import { silentLogger } from '../src/kernel/log';
import { rows } from '../src/kernel/sql';
import { saveMesh } from '../src/meshes/save-mesh';
import { boot } from '../src/runtime/boot';
import { startInProcess } from '../src/runtime/in-process';
import { startRun } from '../src/runs/start-run';
import { waitForRun } from '../src/runs/wait-run';

const [mode, arg] = process.argv.slice(2);
const booted = await boot(loadEngineEnv(), { log: silentLogger });
const { engine } = booted;
const say = (o: object) => process.stdout.write(`${JSON.stringify(o)}\n`);
say({ bus: engine.localBus ? 'local' : 'redis' });
const runtime = startInProcess(engine, { concurrency: 200 });

if (mode === 'start' && arg) {
  const definition = readFileSync(fileURLToPath(new URL('../../../examples/meshes/word-split.json', import.meta.url)), 'utf8');
  const saved = await saveMesh(engine.db, { definition });
  if (!saved.ok) throw new Error(`mesh refused: ${saved.message}`);
  const { runId } = await startRun(engine, { meshId: saved.meshId, input: { bytes: new Uint8Array(readFileSync(arg)) } });
  say({ runId });
  for (;;) {
    await new Promise((r) => setTimeout(r, 100));
    const [c] = await rows<{ done: number }>(engine.db, sql`select count(*) filter (where status = 'done')::int as done from messages where run_id = ${runId}`);
    say({ done: c?.done ?? 0 });
  }
} else if (mode === 'resume' && arg) {
  const view = await waitForRun(engine.db, arg, { timeoutMs: 240_000 });
  say({ status: view.status });
  await runtime.close();
  await booted.close();
} else {
  throw new Error('usage: desktop-child.ts start <file> | resume <runId>');
}
