/**
 * The code step's sandbox: JavaScript runs in a separate Node process that holds a fresh
 * isolated-vm isolate per message, so the code sees no Node APIs, no environment, no network and
 * no files unless granted. The process is one-shot (sandbox/code-runner.mjs) or a warm one serving
 * many messages of the same mesh version and author (code-pool.ts). Defence in depth, the process itself:
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
import type { CodeStep } from '@trellis/mesh/schema';
import { REPO_ROOT } from '../../../kernel/env';
import { StepError } from '../../../kernel/errors';
import type { EgressPolicy } from '../../../policy/egress';
import type { Guard } from '../../../policy/guard';
import { resolveSandbox, withScratchDir, type SandboxSettings, type SandboxUser } from '../../../policy/sandbox-dir';
import { withSandboxSlot } from '../../../security/sandbox-run';
import { runWarm, type SandboxOwner } from './code-pool';
import { endedWhy, MAX_OUTPUT_BYTES, runnerPaths, sandboxEnv, sandboxFlags, type SandboxResult } from './sandbox-process';

export { sandboxEnv, sandboxFlags, type SandboxResult };

/** Time a sandbox process gets beyond the step's limit to start Node and the isolate, in ms. */
const STARTUP_GRACE_MS = 3_000;

let defaultSandbox: SandboxSettings | undefined;

/**
 * Runs `step.source` on `payload` in a fresh isolate and reports how it went; never throws for the
 * code's own failures (see {@link runCodeStep} for causes). With an `owner` (the mesh version and
 * its author) the isolate runs in a warm process of that owner (code-pool.ts); without one, or for
 * a step with a scratch directory (the process's write grant is that one directory), in a one-shot
 * process. `policy` gives the egress policy, the sandbox root and user; without it nothing is
 * reachable by `fetch` and the scratch directory is made under the default root.
 * @throws Error when the sandbox cannot start at all (isolated-vm missing, a bad sandbox setting).
 */
export async function runInSandbox(step: CodeStep, payload: unknown, signal?: AbortSignal, context: CodeContext = {}, policy?: Guard, owner?: SandboxOwner): Promise<SandboxResult> {
  const egress: EgressPolicy = policy ? await policy.egress() : { allow: [], internal: [] };
  const settings = policy?.sandbox() ?? (defaultSandbox ??= resolveSandbox({ appRoot: REPO_ROOT }));
  const run = { step, payload, signal, context, egress: { allow: egress.allow, internal: egress.internal ?? [] }, user: settings.user };
  if (owner && !step.scratchDir) {
    const warm = await runWarm(owner, settings.user, { input: runnerInput(run), timeoutMs: step.timeoutMs, memoryMb: step.memoryMb }, signal);
    if (warm) return warm;
  }
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

/** What a runner (isolate-run.mjs) gets for one message. */
function runnerInput({ step, payload, context, egress, writeDir }: SandboxRun): Record<string, unknown> {
  return { source: step.source, payload, context, timeoutMs: step.timeoutMs, memoryMb: step.memoryMb, network: step.network ?? [], egress, writeDir };
}

function spawnSandbox(run: SandboxRun): Promise<SandboxResult> {
  const { step, signal, user, writeDir } = run;
  const { oneShot, ivm, readable } = runnerPaths();
  const args = [...sandboxFlags(readable, writeDir), oneShot];
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
        finish({ ok: false, ...endedWhy(err, String(code ?? sig ?? '?'), step.memoryMb) });
      }
    });
    child.stdin.on('error', () => undefined); // a process that died early: reported by 'close'
    child.stdin.end(JSON.stringify({ ivmPath: ivm, ...runnerInput(run) }));
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
export async function runCodeStep(
  memberId: string,
  step: CodeStep,
  payload: unknown,
  signal?: AbortSignal,
  context: CodeContext = {},
  policy?: Guard,
  owner?: SandboxOwner,
): Promise<unknown> {
  const r = await withSandboxSlot(memberId, step, signal, () => runInSandbox(step, payload, signal, context, policy, owner));
  if (r.ok) return r.keep ? payload : r.value;
  if (r.kind === 'timeout') throw new StepError('timed_out', memberId, `its code step ${r.message}`);
  const what = r.kind === 'memory' ? r.message : r.kind === 'threw' ? `threw: ${r.message}` : r.message;
  // Retryable like any failing delivery (DESIGN §3): retried with backoff, then dead-lettered.
  throw new StepError('step_code_failed', memberId, `its code step ${what}`);
}
