import { afterEach, describe, expect, it } from 'vitest';
import { CodeStepSchema } from '@trellis/mesh/schema';
import { StepError } from '../../../kernel/errors';
import { closeWarmPool, configureWarmPool, poolKey, warmPoolCounters, warmPoolSnapshot, type SandboxOwner } from './code-pool';
import { runCodeStep } from './code-sandbox';

const step = (source: string, extra: Record<string, unknown> = {}) => CodeStepSchema.parse({ type: 'code', source, ...extra });
const alice: SandboxOwner = { meshId: 'mesh-1', version: 2, author: 'alice' };
const bob: SandboxOwner = { meshId: 'mesh-1', version: 2, author: 'bob' };

/** Runs `source` as `who` in a warm process. */
const run = (who: SandboxOwner, source: string, payload: unknown = {}, extra: Record<string, unknown> = {}) =>
  runCodeStep('code', step(source, extra), payload, undefined, {}, undefined, who);

/** The pids of `who`'s live warm processes. */
const pidsOf = (who: SandboxOwner) =>
  warmPoolSnapshot()
    .filter((w) => w.key === poolKey(who))
    .map((w) => w.pid);

/** Code that keeps its isolate busy for `ms` milliseconds (isolates have no timers), then returns its payload's `n`. */
const busy = (ms: number) => `const t = Date.now(); while (Date.now() - t < ${ms}) {} return { n: payload.n };`;

afterEach(() => closeWarmPool());

describe('warm code sandboxes', () => {
  it('never shows one message the state another left behind, in the same process', async () => {
    await expect(run(alice, 'globalThis.secret = payload.s; global.other = 1; Object.prototype.polluted = true; return { set: true }', { s: 'hunter2' })).resolves.toEqual({ set: true });
    await expect(run(alice, 'return { secret: typeof globalThis.secret, other: typeof other, polluted: typeof ({}).polluted }')).resolves.toEqual({
      secret: 'undefined',
      other: 'undefined',
      polluted: 'undefined',
    });
    const [one] = warmPoolSnapshot();
    expect(warmPoolSnapshot()).toHaveLength(1);
    expect(one?.served).toBe(2);
  });

  it('gives fetch only to the step granted it, in the same process', async () => {
    const granted = await run(alice, 'return { fetch: typeof fetch }', {}, { network: ['api.example.com'] });
    expect(granted).toEqual({ fetch: 'function' });
    await expect(run(alice, 'return { fetch: typeof fetch }')).resolves.toEqual({ fetch: 'undefined' });
    expect(warmPoolSnapshot()[0]?.served).toBe(2);
  });

  it('never lets two authors of the same mesh version share a process', async () => {
    await run(alice, 'return 1');
    await run(bob, 'return 1');
    const a = pidsOf(alice);
    const b = pidsOf(bob);
    expect(a).toHaveLength(1);
    expect(b).toHaveLength(1);
    expect(a[0]).not.toBe(b[0]);
    // Nor two versions of the same author.
    await run({ ...alice, version: 3 }, 'return 1');
    expect(pidsOf({ ...alice, version: 3 })[0]).not.toBe(a[0]);
  });

  it('fails only the message that timed out, and runs the others it held again in a fresh process', async () => {
    configureWarmPool({ maxPerKey: 1, concurrency: 4 });
    const retried = warmPoolCounters().retried;
    const slow = [1, 2, 3].map((n) => run(alice, busy(1_200), { n }, { timeoutMs: 10_000 }));
    await new Promise((r) => setTimeout(r, 100));
    const [first] = pidsOf(alice);
    const looping = run(alice, 'while (true) {}', {}, { timeoutMs: 300 }).catch((e: unknown) => e);
    const err = await looping;
    expect(err).toBeInstanceOf(StepError);
    expect((err as StepError).cause).toBe('timed_out');
    // Each keeps its own answer: nothing of the timed-out message reaches them, none is lost.
    await expect(Promise.all(slow)).resolves.toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
    expect(warmPoolCounters().retried - retried).toBe(3);
    expect(pidsOf(alice)).not.toContain(first);
  });

  it('runs a message again when its process crashes, and fails it with the cause when that happens twice', async () => {
    configureWarmPool({ maxPerKey: 1 });
    const pending = run(alice, busy(800), { n: 7 }, { timeoutMs: 10_000 });
    await new Promise((r) => setTimeout(r, 200));
    const [pid] = pidsOf(alice);
    process.kill(pid as number, 'SIGKILL');
    await expect(pending).resolves.toEqual({ n: 7 });
    const [second] = pidsOf(alice);
    expect(second).not.toBe(pid);

    const twice = run(alice, busy(1_500), { n: 8 }, { timeoutMs: 10_000 }).catch((e: unknown) => e);
    for (let i = 0; i < 2; i++) {
      await new Promise((r) => setTimeout(r, 300));
      process.kill(pidsOf(alice)[0] as number, 'SIGKILL');
    }
    const err = await twice;
    expect((err as StepError).cause).toBe('step_code_failed');
    expect((err as StepError).message).toContain('the sandbox process ended');
  });

  it('recycles a process after its message cap and after a message ran out of memory', async () => {
    configureWarmPool({ maxMessages: 3 });
    const pids = new Set<number>();
    for (let i = 0; i < 7; i++) {
      await expect(run(alice, 'return payload.i', { i })).resolves.toBe(i);
      await new Promise((r) => setTimeout(r, 20));
      for (const p of warmPoolSnapshot()) pids.add(p.pid);
    }
    expect(pids.size).toBe(3);

    configureWarmPool({ maxMessages: 1_000 });
    await run(bob, 'return 1');
    const [before] = pidsOf(bob);
    const err = await run(bob, 'const keep = []; for (;;) keep.push(new Array(1e6).fill(Math.random()));', {}, { memoryMb: 16, timeoutMs: 20_000 }).catch((e: unknown) => e);
    expect((err as StepError).message).toContain('memory limit of 16 MB');
    await run(bob, 'return 1');
    expect(pidsOf(bob)).not.toContain(before);
  });

  it('keeps to the process caps per owner and in all', async () => {
    configureWarmPool({ maxPerKey: 2, maxTotal: 3, concurrency: 1 });
    let most = 0;
    const watch = setInterval(() => (most = Math.max(most, warmPoolSnapshot().length)), 10);
    const owners = [alice, bob, { ...alice, version: 9 }];
    const all = owners.flatMap((who) => [1, 2, 3].map((n) => run(who, busy(300), { n }, { timeoutMs: 10_000 })));
    await expect(Promise.all(all)).resolves.toEqual(owners.flatMap(() => [{ n: 1 }, { n: 2 }, { n: 3 }]));
    clearInterval(watch);
    expect(most).toBeGreaterThan(0);
    expect(most).toBeLessThanOrEqual(3);
    for (const who of owners) expect(pidsOf(who).length).toBeLessThanOrEqual(2);
  });

  it('ends a process that stayed idle', async () => {
    configureWarmPool({ idleMs: 200 });
    await run(alice, 'return 1');
    expect(pidsOf(alice)).toHaveLength(1);
    await new Promise((r) => setTimeout(r, 600));
    expect(pidsOf(alice)).toHaveLength(0);
  });
});
