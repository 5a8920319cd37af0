/** Orchestrator and workers in one process: for the CLI's `run` and the embedded web server. */
import { sql } from 'drizzle-orm';
import { rows } from '../sql';
import type { Engine } from './context';
import { startOrchestrator } from './orchestrator';
import { startWorker, type RunningWorker } from './worker';

/** Options for {@link startInProcess}. */
export interface InProcessOptions {
  /**
   * Pools to serve. When absent, every pool any saved mesh version uses (and `default`), checked
   * again every `poolRefreshMs`, so a mesh saved later with a new pool is served without a restart.
   */
  pools?: readonly string[];
  /** Jobs each pool's worker holds at once (default 64). */
  concurrency?: number;
  /** How often to look for new pools when `pools` is absent (default 5 000 ms). */
  poolRefreshMs?: number;
}

/** Pools named by any saved mesh version, plus `default`. */
async function savedPools(engine: Engine): Promise<string[]> {
  const found = await rows<{ pool: string }>(
    engine.db,
    sql`select distinct coalesce(m ->> 'pool', 'default') as pool
          from mesh_versions v, jsonb_array_elements(v.definition -> 'members') m`,
  );
  return ['default', ...found.map((r) => r.pool)];
}

/** Starts an orchestrator and one worker per pool; `close()` stops them all. */
export function startInProcess(engine: Engine, options: InProcessOptions = {}): { close(): Promise<void> } {
  const workers = new Map<string, RunningWorker>();
  const serve = (pools: readonly string[]) => {
    for (const pool of pools) {
      if (!workers.has(pool)) workers.set(pool, startWorker(engine, { pool, concurrency: options.concurrency ?? 64 }));
    }
  };
  serve(options.pools && options.pools.length > 0 ? options.pools : ['default']);
  let timer: NodeJS.Timeout | undefined;
  let closed = false;
  if (!options.pools) {
    const refresh = () => {
      savedPools(engine)
        .then((pools) => {
          if (!closed) serve(pools);
        })
        .catch((err: unknown) => engine.log.warn('could not list pools', { error: err instanceof Error ? err.message : String(err) }))
        .finally(() => {
          if (!closed) timer = setTimeout(refresh, options.poolRefreshMs ?? 5_000);
        });
    };
    refresh();
  }
  const orchestrator = startOrchestrator(engine);
  return {
    async close() {
      closed = true;
      if (timer) clearTimeout(timer);
      await orchestrator.close();
      await Promise.all([...workers.values()].map((w) => w.close()));
    },
  };
}
