// closeOnSignal's rule for a repeated stop signal, on real processes: one stop that arrives twice
// (Ctrl-C reaching the whole process group, plus a parent passing a signal on) still drains; a
// deliberate second signal later exits at once. And `npm start`'s choice of what to pass on
// (scripts/lib.mjs signalForChildren), in a process group of its own as a terminal makes one.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const BOOT = fileURLToPath(new URL('./boot.ts', import.meta.url));
const LOG = fileURLToPath(new URL('../kernel/log.ts', import.meta.url));
const LIB = fileURLToPath(new URL('../../../../scripts/lib.mjs', import.meta.url));

/** An engine-like process: drains for `drainMs` on a stop signal, printing "ready" once its handlers are on. */
const ENGINE = (drainMs: number) => `const { closeOnSignal } = await import(${JSON.stringify(BOOT)});
const { stderrLogger } = await import(${JSON.stringify(LOG)});
closeOnSignal(() => new Promise((r) => setTimeout(r, ${drainMs})), stderrLogger(true), { drainMs: 20000 });
setInterval(() => undefined, 1000);
console.log('ready');`;

/** A parent like scripts/start.mjs: runs one engine child and passes signals on as signalForChildren says. */
const PARENT = (drainMs: number) => `const { signalForChildren } = await import(${JSON.stringify(LIB)});
const { spawn } = await import('node:child_process');
const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', ${JSON.stringify(ENGINE(drainMs))}], { stdio: ['ignore', 'inherit', 'inherit'] });
const onSignal = (s) => { const f = signalForChildren(s); if (f) child.kill(f); };
process.on('SIGINT', onSignal);
process.on('SIGTERM', onSignal);
child.on('exit', (code, signal) => { console.log('child exited ' + (signal ?? code)); process.exit(0); });`;

interface Proc {
  child: ChildProcess;
  out: () => string;
  exited: Promise<number | string>;
}

/** Spawns `node --import tsx -e script` and resolves once it printed "ready". */
async function start(script: string, detached = false): Promise<Proc> {
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { detached, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout?.on('data', (b: Buffer) => (out += b.toString()));
  child.stderr?.on('data', (b: Buffer) => (out += b.toString()));
  const exited = new Promise<number | string>((r) => child.once('exit', (code, sig) => r(code ?? sig ?? -1)));
  for (let i = 0; i < 600 && !out.includes('ready'); i++) await new Promise((r) => setTimeout(r, 100));
  if (!out.includes('ready')) throw new Error(`did not start: ${out}`);
  return { child, out: () => out, exited };
}

describe('closeOnSignal with a repeated signal', () => {
  it('drains when the same stop arrives twice at once (SIGINT then SIGTERM), logging the repeat', async () => {
    const p = await start(ENGINE(1500));
    p.child.kill('SIGINT');
    p.child.kill('SIGTERM');
    expect(await p.exited).toBe(0);
    expect(p.out()).toContain('already draining');
    expect(p.out()).toContain('drained');
    expect(p.out()).not.toContain('exiting without draining');
  }, 60_000);

  it('exits at once, without draining, on a second signal sent after the window', async () => {
    const p = await start(ENGINE(20_000));
    p.child.kill('SIGINT');
    await new Promise((r) => setTimeout(r, 1500));
    p.child.kill('SIGINT');
    expect(await p.exited).toBe(1);
    expect(p.out()).toContain('exiting without draining');
  }, 60_000);
});

describe("npm start's signal forwarding (signalForChildren)", () => {
  it('passes nothing on after a Ctrl-C to the process group, and SIGTERM after a SIGTERM to the parent alone; the child drains both times', async () => {
    const group = await start(PARENT(500), true);
    // Ctrl-C: the terminal signals every process in the foreground group.
    process.kill(-(group.child.pid ?? 0), 'SIGINT');
    await group.exited;
    expect(group.out()).toContain('drained');
    expect(group.out()).toContain('child exited 0');
    // Forwarding would have been a second signal to the child.
    expect(group.out()).not.toContain('already draining');

    const alone = await start(PARENT(500), true);
    alone.child.kill('SIGTERM');
    await alone.exited;
    expect(alone.out()).toContain('drained');
    expect(alone.out()).toContain('child exited 0');
  }, 90_000);
});
