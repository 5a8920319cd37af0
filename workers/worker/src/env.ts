/** Settings of a worker process: the engine's plus the pools it serves. The only reader of process.env here. */
import { loadEngineEnv, type EngineEnv } from '@trellis/engine/env';
import { parsePools, type PoolSelection } from '@trellis/engine/runtime/pools';

/** Engine settings plus the pools (TRELLIS_POOLS, else TRELLIS_POOL, else `default`) and TRELLIS_VERBOSE. */
export interface WorkerEnv extends EngineEnv {
  /** A list of pools, or `saved` for `*`: every pool saved meshes name (see runtime/pools.ts). */
  pools: PoolSelection;
  verbose: boolean;
}

/**
 * Reads and validates the settings. `--pool <names>` on the command line wins over TRELLIS_POOLS
 * (a comma-separated list, or `*`), which wins over TRELLIS_POOL (one pool, kept for old setups).
 * @throws Error naming a malformed variable or option.
 */
export function loadWorkerEnv(argv: readonly string[] = process.argv.slice(2)): WorkerEnv {
  const flag = argv.indexOf('--pool');
  const fromArg = flag >= 0 ? argv[flag + 1] : argv.find((a) => a.startsWith('--pool='))?.slice('--pool='.length);
  if (flag >= 0 && fromArg === undefined) throw new Error('--pool needs a value: a pool such as agents, a list such as default,agents, or *');
  const pools =
    fromArg !== undefined
      ? parsePools(fromArg, '--pool')
      : process.env.TRELLIS_POOLS
        ? parsePools(process.env.TRELLIS_POOLS, 'TRELLIS_POOLS')
        : parsePools(process.env.TRELLIS_POOL ?? 'default', 'TRELLIS_POOL');
  return { ...loadEngineEnv(process.env), pools, verbose: process.env.TRELLIS_VERBOSE === '1' };
}
