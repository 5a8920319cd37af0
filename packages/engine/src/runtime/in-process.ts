/** Orchestrator and workers in one process: for the CLI's `run` and the embedded web server. */
import type { Engine } from '../kernel/engine';
import { startOrchestrator } from './orchestrator';
import { servePools } from './pools';

/** Options for {@link startInProcess}. */
export interface InProcessOptions {
  /**
   * Pools to serve. When absent or empty, every pool any saved mesh version uses (and `default`),
   * checked again every `poolRefreshMs`, so a mesh saved later with a new pool is served without a
   * restart (see runtime/pools.ts).
   */
  pools?: readonly string[];
  /** Jobs each pool's worker holds at once (default 64). */
  concurrency?: number;
  /** How often to look for new pools when `pools` is absent (default 5 000 ms). */
  poolRefreshMs?: number;
}

/**
 * Starts an orchestrator and one worker per pool; `close()` stops them all, draining the workers
 * (`deadline`: the drain deadline, see runtime/worker.ts `close`).
 */
export function startInProcess(engine: Engine, options: InProcessOptions = {}): { close(deadline?: AbortSignal): Promise<void> } {
  const selection = options.pools && options.pools.length > 0 ? options.pools : 'saved';
  const workers = servePools(engine, selection, { concurrency: options.concurrency ?? 64, refreshMs: options.poolRefreshMs });
  const orchestrator = startOrchestrator(engine);
  return {
    async close(deadline) {
      await orchestrator.close();
      await workers.close(deadline);
    },
  };
}
