/**
 * The code step's sandbox: JavaScript runs in a separate Node process (sandbox/code-runner.mjs)
 * that holds an isolated-vm isolate, so the code sees no Node APIs, no environment, no network and
 * no files unless granted. Defence in depth, the process itself:
 * - starts with an empty environment (`env: {}`), so secrets of the engine are not there to find;
 * - runs under Node's permission model: it may read only the runner, the egress guard and
 *   isolated-vm, write only its own fresh scratch directory (policy/sandbox-dir.ts, when the step
 *   asks for one), and may not start processes or workers;
 * - runs as an unprivileged user (TRELLIS_SANDBOX_USER, default `nobody`) when Trellis runs as root;
 * - is killed when it outlives the step's time limit (plus a grace for starting up).
 * Node 20's permission model does not cover the network, which is why the code itself runs in an
 * isolate without any socket API, and `fetch` is handed in only for the granted hosts, under the
 * install's egress policy (sandbox/egress-core.mjs, the same checks as the engine's).
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { CodeStep } from '@trellis/mesh/schema';
import { REPO_ROOT } from '../../../kernel/env';
import { StepError } from '../../../kernel/errors';
import type { EgressPolicy } from '../../../policy/egress';
import type { Guard } from '../../../policy/guard';
import { resolveSandbox, withScratchDir, type SandboxSettings, type SandboxUser } from '../../../policy/sandbox-dir';
import { withSandboxSlot } from '../../../security/sandbox-run';

/** Time a sandbox process gets beyond the step's limit to start Node and the isolate, in ms. */
const STARTUP_GRACE_MS = 3_000;
/** Largest answer read back from a sandbox, in bytes. */
const MAX_OUTPUT_BYTES = 16 * 1024 * 1024;

/** What the sandbox answers. `keep` means the code returned `undefined`: the payload stays. */
export type SandboxResult = { ok: true; value?: unknown; keep?: boolean } | { ok: false; kind: 'threw' | 'timeout' | 'memory' | 'crashed'; message: string };

function runnerPaths(): { runner: string; ivm: string; egress: string } {
  const runner = join(REPO_ROOT, 'packages', 'engine', 'sandbox', 'code-runner.mjs');
  const egress = join(REPO_ROOT, 'packages', 'engine', 'sandbox', 'egress-core.mjs');
  const ivm = join(REPO_ROOT, 'node_modules', 'isolated-vm');
  if (!existsSync(join(ivm, 'out', 'isolated_vm.node'))) {
    throw new Error(`the code sandbox needs isolated-vm built at ${ivm} (run npm install; it compiles with node-gyp)`);
  }
  return { runner, ivm, egress };
}

/**
 * Node flags of a sandbox process: the permission model with reads limited to `readable` (the
 * runner, the egress guard and isolated-vm), writes only to `writeDir` (the step's fresh scratch
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

let defaultSandbox: SandboxSettings | undefined;

/**
 * Runs `step.source` on `payload` in a fresh sandbox process and reports how it went; never
 * throws for the code's own failures (see {@link runCodeStep} for causes). `policy` gives the
 * egress policy, the sandbox root and user; without it nothing is reachable by `fetch` and the
 * scratch directory is made under the default root.
 * @throws Error when the sandbox cannot start at all (isolated-vm missing, a bad sandbox setting).
 */
export async function runInSandbox(step: CodeStep, payload: unknown, signal?: AbortSignal, context: CodeContext = {}, policy?: Guard): Promise<SandboxResult> {
  const egress: EgressPolicy = policy ? await policy.egress() : { allow: [], internal: [] };
  const settings = policy?.sandbox() ?? (defaultSandbox ??= resolveSandbox({ appRoot: REPO_ROOT }));
  const run = { step, payload, signal, context, egress: { allow: egress.allow, internal: egress.internal ?? [] }, user: settings.user };
  if (!step.scratchDir) return spawnSandbox(run);
  return withScratchDir(settings, (dir) => spawnSandbox({ ...run, writeDir: dir }));
}

interface SandboxRun {
  step: CodeStep;
  payload: unknown;
  signal: AbortSignal | undefined;
  context: CodeContext;
  egress: { allow: string[]; internal: string[] };
  user: SandboxUser | undefined;
  writeDir?: string;
}

function spawnSandbox({ step, payload, signal, context, egress, user, writeDir }: SandboxRun): Promise<SandboxResult> {
  const { runner, ivm, egress: guard } = runnerPaths();
  const args = [...sandboxFlags([runner, guard, ivm], writeDir), runner];
  return new Promise((resolve) => {
    const asUser = user ? { uid: user.uid, gid: user.gid } : {};
    const child = spawn(process.execPath, args, { env: sandboxEnv(), stdio: ['pipe', 'pipe', 'pipe'], ...asUser });
    let out = '';
    let err = '';
    let settled = false;
    const finish = (r: SandboxResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      if (child.exitCode === null) child.kill('SIGKILL');
      resolve(r);
    };
    const timer = setTimeout(
      () => finish({ ok: false, kind: 'timeout', message: `ran longer than ${step.timeoutMs} ms` }),
      step.timeoutMs + STARTUP_GRACE_MS,
    );
    const onAbort = () => finish({ ok: false, kind: 'timeout', message: 'was stopped: the member ran out of time or its run ended' });
    signal?.addEventListener('abort', onAbort, { once: true });
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString('utf8');
      if (out.length > MAX_OUTPUT_BYTES) finish({ ok: false, kind: 'threw', message: `returned more than ${MAX_OUTPUT_BYTES} bytes` });
    });
    child.stderr.on('data', (d: Buffer) => {
      if (err.length < 4000) err += d.toString('utf8');
    });
    child.on('error', (e) => finish({ ok: false, kind: 'crashed', message: e.message }));
    child.on('close', (code, sig) => {
      const line = out.trim().split('\n').pop() ?? '';
      try {
        finish(JSON.parse(line) as SandboxResult);
      } catch {
        const why = /out of memory|heap limit/i.test(err) ? 'memory' : 'crashed';
        const detail = err.trim().split('\n').slice(-3).join(' | ') || `exit ${code ?? sig ?? '?'}`;
        finish({ ok: false, kind: why, message: why === 'memory' ? `ran past its memory limit of ${step.memoryMb} MB` : `the sandbox process ended: ${detail}` });
      }
    });
    child.stdin.on('error', () => undefined); // a process that died early: reported by 'close'
    child.stdin.end(
      JSON.stringify({
        ivmPath: ivm,
        source: step.source,
        payload,
        context,
        timeoutMs: step.timeoutMs,
        memoryMb: step.memoryMb,
        network: step.network ?? [],
        egress,
        writeDir,
      }),
    );
  });
}

/**
 * What a code step's function sees as its second argument, `context`: the delivery's message id and
 * the idempotency key of this step's outside effects (the same on every redelivery).
 */
export interface CodeContext {
  messageId?: string;
  idempotencyKey?: string;
}

/**
 * Runs a code step and returns the new payload (the old one when the code returns `undefined`).
 * @throws StepError `timed_out` past the time limit; `step_code_failed` when the code throws, runs
 *   past its memory limit or the sandbox process dies (both retryable, as any failing delivery).
 */
export async function runCodeStep(memberId: string, step: CodeStep, payload: unknown, signal?: AbortSignal, context: CodeContext = {}, policy?: Guard): Promise<unknown> {
  const r = await withSandboxSlot(memberId, step, signal, () => runInSandbox(step, payload, signal, context, policy));
  if (r.ok) return r.keep ? payload : r.value;
  if (r.kind === 'timeout') throw new StepError('timed_out', memberId, `its code step ${r.message}`);
  const what = r.kind === 'memory' ? r.message : r.kind === 'threw' ? `threw: ${r.message}` : r.message;
  // Retryable like any failing delivery (DESIGN §3): retried with backoff, then dead-lettered.
  throw new StepError('step_code_failed', memberId, `its code step ${what}`);
}
