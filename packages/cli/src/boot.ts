/** Opening database and engine for a command, with settings errors reported as usage errors. */
import { boot, type Booted } from '@trellis/engine/runtime/boot';
import { stderrLogger } from '@trellis/engine/log';
import { loadCliEnv, type CliEnv } from './env';
import { CliError } from './fail';

/** Reads settings. @throws CliError (exit 2) for a malformed variable. */
export function settings(): CliEnv {
  try {
    return loadCliEnv();
  } catch (err) {
    throw new CliError(err instanceof Error ? err.message : String(err));
  }
}

/** Opens everything a command needs. @throws DatabaseUnreachableError / RedisUnreachableError. */
export async function open(env: CliEnv): Promise<Booted> {
  return boot(env, { log: stderrLogger(env.verbose) });
}
