/**
 * `npm run bench:desktop`: word-split on the shared corpus document (licenses.txt, 17,721 words) on
 * the embedded database (PGlite), once on the in-process bus (desktop mode: no Redis) and once on
 * BullMQ with the shared Redis (the embedded mode with REDIS_URL set), alternating, in one run.
 * Prints each run's wall time (s) and messages per second, the medians, and the ratio desktop / Redis
 * (target: at most 1.5). Every run is checked exact (all messages done, the text back byte for byte).
 * Options: `--repeat <n>` runs per bus (default 2).
 */
import { parseArgs } from 'node:util';
import { performance } from 'node:perf_hooks';
import { sql } from 'drizzle-orm';
import { WORD_SPLIT, licensesText, openWorld, saveOrThrow } from '../packages/engine/test/harness';
import { rows } from '../packages/engine/src/kernel/sql';
import { startInProcess } from '../packages/engine/src/runtime/in-process';
import { startRun } from '../packages/engine/src/runs/start-run';
import { waitForRun } from '../packages/engine/src/runs/wait-run';

const { values: args } = parseArgs({ options: { repeat: { type: 'string', default: '2' } } });
const REPEAT = Number(args.repeat);
if (!Number.isInteger(REPEAT) || REPEAT < 1) throw new Error('--repeat: expected a positive integer');

/** One word-split run on a fresh embedded database on `bus`: its wall time (ms) and message count. */
async function once(bus: 'local' | 'redis'): Promise<{ ms: number; messages: number }> {
  const world = await openWorld('pglite', { bus, batchesInFlight: 1 });
  try {
    const meshId = await saveOrThrow(world, WORD_SPLIT);
    const runtime = startInProcess(world.engine, { concurrency: 200 });
    try {
      const t0 = performance.now();
      const { runId } = await startRun(world.engine, { meshId, input: { bytes: licensesText() } });
      const view = await waitForRun(world.engine.db, runId, { timeoutMs: 600_000 });
      const ms = performance.now() - t0;
      const text = (view.output as { text?: string }).text ?? '';
      if (view.status !== 'done' || !Buffer.from(text, 'utf8').equals(licensesText())) throw new Error(`${bus}: the run is not exact (${view.status})`);
      const [c] = await rows<{ n: number; open: number }>(
        world.engine.db,
        sql`select count(*)::int as n, count(*) filter (where status not in ('done', 'filtered'))::int as open from messages where run_id = ${runId}`,
      );
      if ((c?.open ?? 1) !== 0) throw new Error(`${bus}: ${c?.open} messages not done`);
      return { ms, messages: c?.n ?? 0 };
    } finally {
      await runtime.close();
    }
  } finally {
    await world.close();
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

async function main(): Promise<void> {
  const times: Record<'local' | 'redis', number[]> = { local: [], redis: [] };
  for (let i = 0; i < REPEAT; i++) {
    for (const bus of ['redis', 'local'] as const) {
      const r = await once(bus);
      times[bus].push(r.ms);
      console.log(`${bus === 'local' ? 'in-process bus' : 'BullMQ (Redis)'}: ${(r.ms / 1000).toFixed(1)} s, ${r.messages} messages, ${Math.round(r.messages / (r.ms / 1000))} msg/s`);
    }
  }
  const local = median(times.local);
  const redis = median(times.redis);
  console.log(`median: in-process ${(local / 1000).toFixed(1)} s, Redis ${(redis / 1000).toFixed(1)} s; ratio in-process / Redis = ${(local / redis).toFixed(2)} (target <= 1.5)`);
}

await main();
