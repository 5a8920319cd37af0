/** Settings of the entries process: the engine's, plus the admin's entries file. The only reader of process.env here. */
import { readFileSync } from 'node:fs';
import { loadEngineEnv, type EngineEnv } from '@trellis/engine/env';
import { parseEntriesConfig, type EntriesConfig } from './config';
import type { CrashPoint } from './events/binding';

/** Engine settings, the entries' configuration and the test-only crash point. */
export interface EntriesEnv extends EngineEnv {
  entries: EntriesConfig;
  crash: CrashPoint;
  verbose: boolean;
}

/**
 * Reads TRELLIS_ENTRIES_CONFIG (a path to a JSON file) and the engine's variables.
 * @throws Error naming the variable or the file and the bad field.
 */
export function loadEntriesEnv(env: NodeJS.ProcessEnv = process.env): EntriesEnv {
  const path = env.TRELLIS_ENTRIES_CONFIG?.trim();
  let raw: unknown = {};
  if (path) {
    try {
      raw = JSON.parse(readFileSync(path, 'utf8')) as unknown;
    } catch (err) {
      throw new Error(`TRELLIS_ENTRIES_CONFIG: cannot read ${path} as JSON (${(err as Error).message})`);
    }
  }
  const crash = env.TRELLIS_TEST_ENTRY_CRASH;
  if (crash !== undefined && crash !== 'before-commit' && crash !== 'after-commit') {
    throw new Error('TRELLIS_TEST_ENTRY_CRASH: expected before-commit or after-commit (a test-only fault)');
  }
  return { ...loadEngineEnv(env), entries: parseEntriesConfig(raw, path ?? 'TRELLIS_ENTRIES_CONFIG'), crash, verbose: env.TRELLIS_VERBOSE === '1' };
}
