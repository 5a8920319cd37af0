import { spawnSync } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CodeStepSchema } from '@trellis/mesh/schema';
import { REPO_ROOT } from '../../../kernel/env';
import { StepError } from '../../../kernel/errors';
import type { Guard } from '../../../policy/guard';
import { resolveSandbox } from '../../../policy/sandbox-dir';
import { closeWarmPool, poolKey, warmPoolSnapshot, type SandboxOwner } from './code-pool';
import { runCodeStep as runCold, sandboxEnv, sandboxFlags } from './code-sandbox';

/** The owner the suite's steps run as: none (a one-shot process each), or a mesh version (warm processes). */
let owner: SandboxOwner | undefined;
const runCodeStep: typeof runCold = (memberId, s, payload, signal, context, guard) => runCold(memberId, s, payload, signal, context, guard, owner);

/** The part of a guard a code step uses: an egress policy allowing `allow` (and `internal`), and the default sandbox. */
const policy = (allow: string[], internal: string[] = []) =>
  ({ egress: () => Promise.resolve({ allow, internal }), sandbox: () => resolveSandbox({ appRoot: REPO_ROOT }) }) as unknown as Guard;

const step = (source: string, extra: Record<string, unknown> = {}) => CodeStepSchema.parse({ type: 'code', source, ...extra });

async function failure(source: string, extra: Record<string, unknown> = {}): Promise<StepError> {
  try {
    await runCodeStep('code', step(source, extra), { a: 1 });
  } catch (err) {
    if (err instanceof StepError) return err;
    throw err;
  }
  throw new Error('the code step was expected to fail');
}

let server: Server;
let port = 0;
let hits = 0;
const dir = mkdtempSync(join(tmpdir(), 'trellis-sandbox-'));

beforeAll(async () => {
  server = createServer((_req, res) => {
    hits++;
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ hello: 'from the allowed host' }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as { port: number }).port;
  process.env.TRELLIS_SANDBOX_TEST_SECRET = 'hunter2';
});

afterAll(async () => {
  closeWarmPool();
  delete process.env.TRELLIS_SANDBOX_TEST_SECRET;
  await new Promise((r) => server.close(r));
  rmSync(dir, { recursive: true, force: true });
});

describe.each([
  ['a one-shot process per message', undefined],
  ['warm processes of one mesh version', { meshId: 'mesh-a', version: 3, author: 'user-1' }],
] as const)('code step sandbox in %s', (_name, who) => {
  beforeAll(() => {
    owner = who;
  });

  it.runIf(who !== undefined)('serves the suite from a warm process', async () => {
    await runCodeStep('code', step('return 1'), {});
    await runCodeStep('code', step('return 2'), {});
    const mine = warmPoolSnapshot().filter((w) => who && w.key === poolKey(who));
    expect(mine).toHaveLength(1);
    expect(mine[0]?.served).toBeGreaterThanOrEqual(2);
  });

  it('runs code on the payload and returns the new payload', async () => {
    await expect(runCodeStep('code', step('return { sum: payload.a + 41, keys: Object.keys(payload) }'), { a: 1 })).resolves.toEqual({ sum: 42, keys: ['a'] });
    await expect(runCodeStep('code', step('payload.ignored = 1;'), { a: 1 })).resolves.toEqual({ a: 1 });
  });

  it('maps a throw to step_code_failed with the message', async () => {
    const err = await failure('throw new Error("bad claim number")');
    expect(err.cause).toBe('step_code_failed');
    expect(err.message).toContain('bad claim number');
  });

  it('refuses reading environment secrets', async () => {
    const err = await failure('return { secret: process.env.TRELLIS_SANDBOX_TEST_SECRET }');
    expect(err.cause).toBe('step_code_failed');
    expect(err.message).toContain('process is not defined');
    expect(err.message).not.toContain('hunter2');
  });

  it('refuses the constructor escape to the host process', async () => {
    const err = await failure("const p = this.constructor.constructor('return process')(); return { env: p.env }");
    expect(err.cause).toBe('step_code_failed');
    expect(err.message).toContain('process is not defined');
    const viaFn = await failure("return (function(){}).constructor('return require')()('child_process').execSync('id').toString()");
    expect(viaFn.message).toContain('require is not defined');
  });

  it('refuses writing a file, and writes only inside a granted directory', async () => {
    const target = join(dir, 'escape.txt');
    const err = await failure(`require('fs').writeFileSync(${JSON.stringify(target)}, 'x')`);
    expect(err.message).toContain('require is not defined');
    const imp = await failure(`const fs = await import('node:fs'); fs.writeFileSync(${JSON.stringify(target)}, 'x')`);
    expect(imp.cause).toBe('step_code_failed');
    expect(existsSync(target)).toBe(false);
    // A fresh directory of the step's own, made by the server and removed after the step.
    const root = resolveSandbox({ appRoot: REPO_ROOT }).root;
    const leftBefore = readdirSync(root).length;
    const grant = { scratchDir: true };
    await expect(runCodeStep('code', step("await writeFile('out/ok.txt', 'granted'); return { done: true }", grant), {})).resolves.toEqual({ done: true });
    const outside = await failure("await writeFile('../escape.txt', 'x')", grant);
    expect(outside.message).toContain('outside the granted directory');
    expect(readdirSync(root).length).toBe(leftBefore);
  });

  it('refuses a network connection unless the host is granted', async () => {
    const before = hits;
    const url = `http://127.0.0.1:${port}/`;
    const noFetch = await failure(`return await (await fetch(${JSON.stringify(url)})).json()`);
    expect(noFetch.message).toContain('fetch is not defined');
    const otherHost = await failure(`return await (await fetch(${JSON.stringify(url)})).json()`, { network: ['api.example.com'] });
    expect(otherHost.message).toContain('not granted');
    expect(hits).toBe(before);
    // Granted by the step but loopback: the install's egress policy refuses it unless an admin allows this host.
    const loopback = await failure(`return await (await fetch(${JSON.stringify(url)})).json()`, { network: ['127.0.0.1'] });
    expect(loopback.message).toContain('egress policy');
    expect(hits).toBe(before);
    const granted = await runCodeStep('code', step(`return await (await fetch(${JSON.stringify(url)})).json()`, { network: ['127.0.0.1'] }), {}, undefined, {}, policy(['*'], [`127.0.0.1:${port}`]));
    expect(granted).toEqual({ hello: 'from the allowed host' });
    expect(hits).toBe(before + 1);
  });

  it('refuses spawning a process', async () => {
    const err = await failure("return require('child_process').execSync('id').toString()");
    expect(err.message).toContain('require is not defined');
    const dyn = await failure("const cp = await import('child_process'); return cp.execSync('id').toString()");
    expect(dyn.cause).toBe('step_code_failed');
  });

  it('stops an infinite loop after the time limit with timed_out', async () => {
    const started = Date.now();
    const err = await failure('while (true) {}', { timeoutMs: 300 });
    expect(err.cause).toBe('timed_out');
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it('stops an async loop too', async () => {
    const err = await failure('await null; for (;;) {}', { timeoutMs: 300 });
    expect(err.cause).toBe('timed_out');
  });

  it('applies the configured memory limit: 30 MB fits in 128 MB, not in 16 MB', async () => {
    const source = 'const keep = []; for (let i = 0; i < 30; i++) keep.push(new Array(131072).fill(i + 0.5)); return { n: keep.length };';
    await expect(runCodeStep('code', step(source, { memoryMb: 128, timeoutMs: 20_000 }), {})).resolves.toEqual({ n: 30 });
    const err = await failure(source, { memoryMb: 16, timeoutMs: 20_000 });
    expect(err.message).toContain('memory limit of 16 MB');
  });

  it('fails code that allocates past its memory limit with a clear error', async () => {
    const err = await failure('const keep = []; for (;;) keep.push(new Array(1e6).fill(Math.random()));', { memoryMb: 16, timeoutMs: 20_000 });
    expect(err.cause).toBe('step_code_failed');
    expect(err.message).toContain('memory limit of 16 MB');
  });

  it('starts the sandbox process with no environment, no file writes and no subprocesses (defence in depth)', () => {
    // What code that escaped the isolate would meet: the same flags and environment, host code this time.
    const target = join(dir, 'host-escape.txt');
    const probe = `
      const out = { env: Object.keys(process.env) };
      try { require('node:fs').writeFileSync(${JSON.stringify(target)}, 'x'); out.write = 'written'; } catch (e) { out.write = e.code; }
      try { require('node:child_process').execFileSync(process.execPath, ['-e', '1']); out.spawn = 'spawned'; } catch (e) { out.spawn = e.code; }
      try { require('node:fs').readFileSync('/etc/hostname'); out.read = 'read'; } catch (e) { out.read = e.code; }
      console.log(JSON.stringify(out));`;
    const flags = sandboxFlags([]).filter((f) => f !== '--no-node-snapshot');
    const got = spawnSync(process.execPath, [...flags, '-e', probe], { env: sandboxEnv(), encoding: 'utf8' });
    expect(JSON.parse(got.stdout)).toEqual({ env: [], write: 'ERR_ACCESS_DENIED', spawn: 'ERR_ACCESS_DENIED', read: 'ERR_ACCESS_DENIED' });
    expect(existsSync(target)).toBe(false);
  });
});
