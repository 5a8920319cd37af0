/** Settings of a worker process: the engine's plus the pool it serves. The only reader of process.env here. */
import { z } from 'zod';
import { loadEngineEnv, type EngineEnv } from '@trellis/engine/env';

/** Engine settings plus TRELLIS_POOL (default `default`) and TRELLIS_VERBOSE. */
export interface WorkerEnv extends EngineEnv {
  pool: string;
  verbose: boolean;
}

/** Reads and validates the settings. @throws Error naming a malformed variable. */
export function loadWorkerEnv(): WorkerEnv {
  const pool = z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9_-]{0,62}$/, 'TRELLIS_POOL must be a member pool id')
    .default('default')
    .parse(process.env.TRELLIS_POOL);
  return { ...loadEngineEnv(process.env), pool, verbose: process.env.TRELLIS_VERBOSE === '1' };
}
