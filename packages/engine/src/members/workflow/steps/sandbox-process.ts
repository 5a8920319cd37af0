/**
 * How a code sandbox process is started, one-shot (code-sandbox.ts) or warm (code-pool.ts): the
 * runner files it may read, its Node flags and its (empty) environment.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../../../kernel/env';

/** What the sandbox answers. `keep` means the code returned `undefined`: the payload stays. */
export type SandboxResult = { ok: true; value?: unknown; keep?: boolean } | { ok: false; kind: 'threw' | 'timeout' | 'memory' | 'crashed'; message: string };

/** Largest answer read back from a sandbox, in bytes. */
export const MAX_OUTPUT_BYTES = 16 * 1024 * 1024;

/** The runner scripts and isolated-vm, absolute paths; `readable` is what a sandbox process may read. */
export interface RunnerPaths {
  oneShot: string;
  warm: string;
  ivm: string;
  readable: string[];
}

/**
 * Paths of the sandbox runners (packages/engine/sandbox) and of isolated-vm.
 * @throws Error when isolated-vm is not built.
 */
export function runnerPaths(): RunnerPaths {
  const dir = join(REPO_ROOT, 'packages', 'engine', 'sandbox');
  const ivm = join(REPO_ROOT, 'node_modules', 'isolated-vm');
  if (!existsSync(join(ivm, 'out', 'isolated_vm.node'))) {
    throw new Error(`the code sandbox needs isolated-vm built at ${ivm} (run npm install; it compiles with node-gyp)`);
  }
  const oneShot = join(dir, 'code-runner.mjs');
  const warm = join(dir, 'pool-runner.mjs');
  return { oneShot, warm, ivm, readable: [oneShot, warm, join(dir, 'isolate-run.mjs'), join(dir, 'egress-core.mjs'), ivm] };
}

/**
 * Node flags of a sandbox process: the permission model with reads limited to `readable` (the
 * runners, the egress guard and isolated-vm), writes only to `writeDir` (the step's fresh scratch
 * directory, when it has one), native addons allowed (isolated-vm is one), and no child processes
 * or workers (not granted, so refused).
 */
export function sandboxFlags(readable: readonly string[], writeDir?: string): string[] {
  return [
    '--no-node-snapshot', // isolated-vm needs it on Node 20 and later
    '--experimental-permission',
    ...readable.map((p) => `--allow-fs-read=${p}`),
    '--allow-addons',
    ...(writeDir ? [`--allow-fs-write=${writeDir}`] : []),
    '--max-old-space-size=128',
    '--disable-warning=ExperimentalWarning',
  ];
}

/** The environment of a sandbox process: empty. (The cast: Next.js declares NODE_ENV a required variable.) */
export function sandboxEnv(): NodeJS.ProcessEnv {
  return Object.create(null) as NodeJS.ProcessEnv;
}

/** Sorts a sandbox process's stderr into `memory` (its heap ran out) or `crashed`, with the message for each. */
export function endedWhy(stderr: string, exit: string, memoryMb: number): { kind: 'memory' | 'crashed'; message: string } {
  if (/out of memory|heap limit/i.test(stderr)) return { kind: 'memory', message: `ran past its memory limit of ${memoryMb} MB` };
  const detail = stderr.trim().split('\n').slice(-3).join(' | ') || `exit ${exit}`;
  return { kind: 'crashed', message: `the sandbox process ended: ${detail}` };
}
