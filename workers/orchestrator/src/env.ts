/** Settings of the orchestrator process: the engine's. The only reader of process.env here. */
import { loadEngineEnv, type EngineEnv } from '@trellis/engine/env';

/** Engine settings plus TRELLIS_VERBOSE. */
export interface OrchestratorEnv extends EngineEnv {
  verbose: boolean;
}

/** Reads and validates the settings. @throws Error naming a malformed variable. */
export function loadOrchestratorEnv(): OrchestratorEnv {
  return { ...loadEngineEnv(process.env), verbose: process.env.TRELLIS_VERBOSE === '1' };
}
