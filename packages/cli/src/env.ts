/** The CLI's settings: the engine's (DATABASE_URL, REDIS_URL, …) plus its own. The only reader of process.env here. */
import { loadEngineEnv, type EngineEnv } from '@trellis/engine/env';

/** Engine settings plus `verbose` (TRELLIS_VERBOSE=1 logs progress to stderr). */
export interface CliEnv extends EngineEnv {
  verbose: boolean;
}

/** Reads and validates the settings. @throws Error naming a malformed variable. */
export function loadCliEnv(): CliEnv {
  return { ...loadEngineEnv(process.env), verbose: process.env.TRELLIS_VERBOSE === '1' };
}
