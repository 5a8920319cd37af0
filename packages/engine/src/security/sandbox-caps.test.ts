// Code sandboxes per worker: at most TRELLIS_MAX_SANDBOXES processes at once, and their memory
// limits together within TRELLIS_SANDBOX_MEMORY_MB; a step that could never fit is refused naming it.
import { afterEach, describe, expect, it } from 'vitest';
import { CodeStepSchema } from '@trellis/mesh/schema';
import { StepError } from '../kernel/errors';
import { runCodeStep } from '../members/workflow/steps/code-sandbox';
import { overrideLimits } from './env';
import { SANDBOX_PROCESS_MB, acquireSandbox, sandboxUse } from './sandbox-slots';

const busy = CodeStepSchema.parse({ type: 'code', source: 'const end = Date.now() + 400; while (Date.now() < end); return { done: true };', timeoutMs: 20_000 });

describe('sandbox caps', () => {
  let restore: (() => void) | undefined;
  afterEach(() => {
    restore?.();
    restore = undefined;
  });

  it('runs at most TRELLIS_MAX_SANDBOXES at once; the rest wait their turn and all finish', async () => {
    restore = overrideLimits({ maxSandboxes: 2 });
    let most = 0;
    const watch = setInterval(() => (most = Math.max(most, sandboxUse().running)), 5);
    try {
      const results = await Promise.all(Array.from({ length: 6 }, () => runCodeStep('code', busy, {})));
      expect(results).toEqual(Array.from({ length: 6 }, () => ({ done: true })));
    } finally {
      clearInterval(watch);
    }
    expect(most).toBe(2);
    expect(sandboxUse()).toEqual({ running: 0, reservedMb: 0, waiting: 0 });
  }, 60_000);

  it('admits sandboxes only while their memory fits TRELLIS_SANDBOX_MEMORY_MB', async () => {
    restore = overrideLimits({ maxSandboxes: 10, sandboxMemoryMb: 2 * (64 + SANDBOX_PROCESS_MB) });
    const a = await acquireSandbox(64);
    const b = await acquireSandbox(64);
    let third = false;
    const c = acquireSandbox(64).then((release) => {
      third = true;
      return release;
    });
    await new Promise((r) => setTimeout(r, 50));
    expect(third).toBe(false);
    a();
    (await c)();
    expect(third).toBe(true);
    b();
  });

  it('refuses a step whose memory alone passes the cap, naming TRELLIS_SANDBOX_MEMORY_MB', async () => {
    restore = overrideLimits({ sandboxMemoryMb: 256 });
    const big = CodeStepSchema.parse({ type: 'code', source: 'return 1;', memoryMb: 512 });
    const err = await runCodeStep('code', big, {}).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StepError);
    expect((err as StepError).message).toMatch(/needs 576 MB \(512 MB for the code\), over TRELLIS_SANDBOX_MEMORY_MB \(256 MB\)/);
    expect((err as StepError).retryable).toBe(false);
  });

  it('gives the slot back to a waiter that stops waiting', async () => {
    restore = overrideLimits({ maxSandboxes: 1 });
    const held = await acquireSandbox(8);
    const stop = new AbortController();
    const waiting = acquireSandbox(8, stop.signal);
    stop.abort(new Error('run ended'));
    await expect(waiting).rejects.toThrow('run ended');
    held();
    expect(sandboxUse()).toEqual({ running: 0, reservedMb: 0, waiting: 0 });
  });
});
