/**
 * Named worker pools: one BullMQ queue per pool, one worker per pool served. A member names its
 * pool with `pool`; a member without one runs on `default`. There are no per-kind default pools:
 * a mesh that wants its agents or code steps on their own machines says `"pool": "agents"`, and
 * `trellis worker --pool agents` serves that pool. Deployments that run one kind of worker for
 * everything (`npm start`, docker/compose.yml, the in-process engine) serve every pool any saved
 * mesh names (`*`), so no run waits for a pool nobody serves.
 */
import { z } from 'zod';
import { sql } from 'drizzle-orm';
import { IdSchema } from '@trellis/mesh/schema';
import { rows } from '../kernel/sql';
import type { Engine } from '../kernel/engine';
import { startWorker, type RunningWorker } from './worker';

/** Which pools a process serves: a fixed list, or `saved`: `default` plus every pool saved meshes name. */
export type PoolSelection = readonly string[] | 'saved';

/**
 * Reads a pool selection such as `agents`, `default,agents` or `*` (every saved pool).
 * @throws Error naming `what` (e.g. `--pool`, `TRELLIS_POOLS`) and the bad name.
 */
export function parsePools(text: string, what: string): PoolSelection {
  const names = text.split(',').map((s) => s.trim()).filter((s) => s !== '');
  if (names.length === 0) throw new Error(`${what} is empty: name a pool such as agents, a list such as default,agents, or * for every pool`);
  if (names.includes('*')) {
    if (names.length > 1) throw new Error(`${what} mixes * with pool names; use * alone or list the pools`);
    return 'saved';
  }
  for (const n of names) {
    if (!IdSchema.safeParse(n).success) throw new Error(`${what} names "${n}", which is not a pool id (1-63 letters, digits, "-" or "_")`);
  }
  return [...new Set(names)];
}

/** Pools named by any saved mesh version, plus `default`. */
export async function savedPools(engine: Engine): Promise<string[]> {
  const found = await rows(
    engine.db,
    sql`select distinct coalesce(m ->> 'pool', 'default') as pool
          from mesh_versions v, jsonb_array_elements(v.definition -> 'members') m`,
    z.object({ pool: z.string() }),
  );
  return [...new Set(['default', ...found.map((r) => r.pool)])];
}

/** Workers for a pool selection. */
export interface PoolWorkers {
  /** Pools served so far. */
  served(): string[];
  /** Drains every pool's worker; `deadline` is the drain deadline (see runtime/worker.ts `close`). */
  close(deadline?: AbortSignal): Promise<void>;
}

/**
 * Starts one worker per selected pool. With `saved`, serves `default` at once, then every pool
 * saved meshes name, checked again every `refreshMs` (default 5 000) so a mesh saved later with a
 * new pool is served without a restart.
 */
export function servePools(engine: Engine, selection: PoolSelection, options: { concurrency?: number; refreshMs?: number } = {}): PoolWorkers {
  const workers = new Map<string, RunningWorker>();
  let closed = false;
  let timer: NodeJS.Timeout | undefined;
  const serve = (pools: readonly string[]) => {
    for (const pool of pools) {
      if (!closed && !workers.has(pool)) workers.set(pool, startWorker(engine, { pool, concurrency: options.concurrency ?? 64 }));
    }
  };
  serve(selection === 'saved' ? ['default'] : selection);
  if (selection === 'saved') {
    const refresh = () => {
      savedPools(engine)
        .then(serve)
        .catch((err: unknown) => engine.log.warn('could not list pools', { error: err instanceof Error ? err.message : String(err) }))
        .finally(() => {
          if (!closed) timer = setTimeout(refresh, options.refreshMs ?? 5_000);
        });
    };
    refresh();
  }
  return {
    served: () => [...workers.keys()],
    async close(deadline) {
      closed = true;
      if (timer) clearTimeout(timer);
      await Promise.all([...workers.values()].map((w) => w.close(deadline)));
    },
  };
}
