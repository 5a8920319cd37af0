/**
 * The scrape-time gauges of kernel/metrics.ts read from one engine: queue depth and the oldest
 * waiting message's age per pool (BullMQ's job counts and its oldest waiting job; on the in-process
 * bus, the pending rows), and runs by status and cause (one grouped query on `runs`).
 */
import { z } from 'zod';
import { sql } from 'drizzle-orm';
import { busOf } from '../kernel/queues';
import { rows } from '../kernel/sql';
import { msgStatus } from '../kernel/statuses';
import { useGaugeSource, type GaugeSource, type PoolDepth, type RunCount } from '../kernel/metrics';
import type { Engine } from '../kernel/engine';
import { savedPools } from './pools';

const RunCountRow = z.object({ status: z.string(), cause: z.string(), count: z.coerce.number() });
const PendingRow = z.object({ pool: z.string(), depth: z.coerce.number(), age: z.coerce.number() });

/** A gauge source on `engine`; `pools` lists the pools to report (default: `default` and every pool saved meshes name). */
export function engineGaugeSource(engine: Engine, pools: () => Promise<readonly string[]> = () => savedPools(engine)): GaugeSource {
  return {
    async pools(): Promise<PoolDepth[]> {
      const names = await pools();
      if (busOf(engine).kind === 'local') {
        // The same series as on BullMQ: every reported pool, at 0 while nothing waits on it.
        const found = await localDepths(engine);
        const listed = new Set(found.map((p) => p.pool));
        return [...found, ...names.filter((pool) => !listed.has(pool)).map((pool) => ({ pool, depth: 0, oldestAgeSeconds: 0 }))];
      }
      return Promise.all(names.map((pool) => bullmqDepth(engine, pool)));
    },
    async runs(): Promise<RunCount[]> {
      // runs_status_created_idx covers status; the cause index is partial, so this is one scan of the
      // (retention-bounded) runs table, grouped in the database.
      return rows(engine.db, sql`select status, coalesce(cause, '') as cause, count(*) as count from runs group by 1, 2`, RunCountRow);
    },
  };
}

/** Makes `engine` the source of this process's gauges (kernel/metrics.ts `useGaugeSource`). */
export function reportGaugesOf(engine: Engine): void {
  useGaugeSource(engineGaugeSource(engine));
}

async function bullmqDepth(engine: Engine, pool: string): Promise<PoolDepth> {
  const queue = engine.queue(pool);
  const counts = await queue.getJobCounts('waiting', 'prioritized', 'delayed');
  const depth = (counts.waiting ?? 0) + (counts.prioritized ?? 0) + (counts.delayed ?? 0);
  // asc: the oldest waiting job first (BullMQ adds to the list's head and takes from its tail).
  const [oldest] = depth > 0 ? await queue.getJobs(['waiting'], 0, 0, true) : [];
  const age = oldest ? Math.max(0, (Date.now() - oldest.timestamp) / 1000) : 0;
  return { pool, depth, oldestAgeSeconds: age };
}

async function localDepths(engine: Engine): Promise<PoolDepth[]> {
  const found = await rows(
    engine.db,
    sql`select pool, count(*) as depth, coalesce(extract(epoch from now() - min(created_at)), 0) as age
          from messages where status = ${msgStatus('pending')} group by pool`,
    PendingRow,
  );
  return found.map((r) => ({ pool: r.pool, depth: r.depth, oldestAgeSeconds: Math.max(0, r.age) }));
}
