/** The CLI's settings: the engine's (DATABASE_URL, REDIS_URL, …) plus its own. The only reader of process.env here. */
import { loadEngineEnv, type EngineEnv } from '@trellis/engine/env';

/** Engine settings plus `verbose` (TRELLIS_VERBOSE=1 logs progress to stderr) and `token` (TRELLIS_TOKEN, an API token for commands that ask a running server). */
export interface CliEnv extends EngineEnv {
  verbose: boolean;
  token: string | undefined;
}

/** Reads and validates the settings. @throws Error naming a malformed variable. */
export function loadCliEnv(): CliEnv {
  return { ...loadEngineEnv(process.env), verbose: process.env.TRELLIS_VERBOSE === '1', token: process.env.TRELLIS_TOKEN || undefined };
}
