/**
 * Warm code sandboxes: long-lived sandbox processes (sandbox/pool-runner.mjs), each serving many
 * messages of ONE owner, a mesh version and its author, so a wide fan-out through a code step does
 * not pay a process start per message. A process is never shared across owners: an escape from an
 * isolate would meet only the payloads that owner's code already sees. Each message still runs in a
 * fresh isolate of its own (new Isolate per message, disposed after), with its memory and time
 * limits; the process is started exactly like the one-shot one (code-sandbox.ts): empty
 * environment, Node's permission model without any write grant, an unprivileged user.
 *
 * Rules: at most `maxPerKey` processes per owner and `maxTotal` in all (an idle process of another
 * owner is ended to make room); a process ends after `idleMs` without work, and is recycled after
 * `maxMessages` messages, after a message ran out of memory (once its other messages finish), and at
 * once when a message times out, is stopped, or the process crashes. Messages a killed process still
 * held are sent again, once, to a fresh process; a second loss fails them with the process's cause.
 * With no room at all the caller runs the message in a one-shot process.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import type { SandboxUser } from '../../../policy/sandbox-dir';
import { endedWhy, MAX_OUTPUT_BYTES, runnerPaths, sandboxEnv, sandboxFlags, type SandboxResult } from './sandbox-process';

/** Whose code a sandbox runs: the mesh version and the user who saved it (`mesh_versions.created_by`, null when unknown). */
export interface SandboxOwner {
  meshId: string;
  version: number;
  author: string | null;
}

/** Limits of the warm pool: process counts, messages per process, idle time in ms, messages in flight per process. */
export interface WarmPoolSettings {
  maxPerKey: number;
  maxTotal: number;
  maxMessages: number;
  idleMs: number;
  concurrency: number;
}

/** One message for a warm process: the runner input (isolate-run.mjs) and its limits (ms, MB). */
export interface WarmJob {
  input: Record<string, unknown>;
  timeoutMs: number;
  memoryMb: number;
}

const DEFAULTS: WarmPoolSettings = { maxPerKey: 2, maxTotal: 8, maxMessages: 1_000, idleMs: 30_000, concurrency: 4 };
/** Time a warm process gets beyond a message's limit before the engine stops it, in ms. */
const WARM_GRACE_MS = 1_000;
/** Times a message is sent to a warm process before a lost process fails it. */
const MAX_ATTEMPTS = 2;

let settings: WarmPoolSettings = { ...DEFAULTS };
const byKey = new Map<string, WarmProcess[]>();
const counters = { spawned: 0, recycled: 0, retried: 0 };
let nextId = 0;

/** The pool key of an owner: mesh id, version and author, all three. */
export function poolKey(owner: SandboxOwner): string {
  return JSON.stringify([owner.meshId, owner.version, owner.author]);
}

interface Pending {
  id: number;
  key: string;
  user: SandboxUser | undefined;
  job: WarmJob;
  attempts: number;
  signal: AbortSignal | undefined;
  resolve: (r: SandboxResult | undefined) => void;
  timer?: NodeJS.Timeout;
  onAbort?: () => void;
}

class WarmProcess {
  readonly child: ChildProcessWithoutNullStreams;
  readonly pending = new Map<number, Pending>();
  served = 0;
  retiring = false;
  dead = false;
  /** Killed, its exit not yet seen: no longer counted or given work. */
  ending = false;
  lastUsed = Date.now();
  private out = '';
  private err = '';
  private idle: NodeJS.Timeout | undefined;

  constructor(
    readonly key: string,
    user: SandboxUser | undefined,
  ) {
    const paths = runnerPaths();
    const asUser = user ? { uid: user.uid, gid: user.gid } : {};
    this.child = spawn(process.execPath, [...sandboxFlags(paths.readable), paths.warm, paths.ivm], { env: sandboxEnv(), stdio: ['pipe', 'pipe', 'pipe'], ...asUser });
    counters.spawned++;
    this.child.stdout.on('data', (d: Buffer) => this.read(d.toString('utf8')));
    this.child.stderr.on('data', (d: Buffer) => {
      this.err = (this.err + d.toString('utf8')).slice(-4000);
    });
    this.child.stdin.on('error', () => undefined); // a process that died: reported by 'close'
    this.child.on('error', (e) => this.died(e.message));
    this.child.on('close', (code, sig) => this.died(String(code ?? sig ?? '?')));
    this.setRef(false);
  }

  get pid(): number {
    return this.child.pid ?? -1;
  }

  send(p: Pending): void {
    clearTimeout(this.idle);
    this.pending.set(p.id, p);
    this.served++;
    this.lastUsed = Date.now();
    if (this.served >= settings.maxMessages) this.retiring = true;
    this.setRef(true);
    p.timer = setTimeout(() => this.stop(p, { ok: false, kind: 'timeout', message: `ran longer than ${p.job.timeoutMs} ms` }), p.job.timeoutMs + WARM_GRACE_MS);
    if (p.signal) {
      p.onAbort = () => this.stop(p, { ok: false, kind: 'timeout', message: 'was stopped: the member ran out of time or its run ended' });
      p.signal.addEventListener('abort', p.onAbort, { once: true });
    }
    this.child.stdin.write(JSON.stringify({ id: p.id, input: p.job.input }) + '\n');
  }

  /** Ends the process at once (SIGKILL); its other messages are sent again by `died`. */
  kill(): void {
    this.ending = true;
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
  }

  private read(chunk: string): void {
    this.out += chunk;
    let nl = this.out.indexOf('\n');
    while (nl >= 0) {
      const line = this.out.slice(0, nl);
      this.out = this.out.slice(nl + 1);
      this.answer(line);
      nl = this.out.indexOf('\n');
    }
    if (this.out.length > MAX_OUTPUT_BYTES + 65_536) this.kill();
  }

  private answer(line: string): void {
    let msg: { id: number; result: SandboxResult };
    try {
      msg = JSON.parse(line) as { id: number; result: SandboxResult };
    } catch {
      this.kill();
      return;
    }
    const p = this.pending.get(msg.id);
    if (!p) return;
    const r = msg.result;
    if (!r.ok && r.kind === 'timeout') this.stop(p, r);
    else {
      if (!r.ok && r.kind === 'memory') this.retiring = true;
      this.settle(p, r);
      this.afterSettle();
    }
  }

  /** A message timed out or was stopped: its isolate may still be running, so the process goes. */
  private stop(p: Pending, r: SandboxResult): void {
    if (!this.pending.has(p.id)) return;
    this.settle(p, r);
    if (!this.ending) counters.recycled++;
    this.retiring = true;
    this.kill();
  }

  private settle(p: Pending, r: SandboxResult | undefined): void {
    if (!this.pending.delete(p.id)) return;
    clearTimeout(p.timer);
    if (p.onAbort) p.signal?.removeEventListener('abort', p.onAbort);
    p.resolve(r);
  }

  private afterSettle(): void {
    if (this.pending.size > 0) return;
    this.setRef(false);
    if (this.retiring) {
      counters.recycled++;
      this.kill();
      return;
    }
    this.idle = setTimeout(() => this.kill(), settings.idleMs);
    this.idle.unref();
  }

  private died(exit: string): void {
    if (this.dead) return;
    this.dead = true;
    clearTimeout(this.idle);
    const list = byKey.get(this.key)?.filter((w) => w !== this) ?? [];
    if (list.length > 0) byKey.set(this.key, list);
    else byKey.delete(this.key);
    const why = endedWhy(this.err, exit, 0);
    for (const p of [...this.pending.values()]) {
      this.pending.delete(p.id);
      clearTimeout(p.timer);
      if (p.onAbort) p.signal?.removeEventListener('abort', p.onAbort);
      if (p.attempts < MAX_ATTEMPTS && !p.signal?.aborted) {
        counters.retried++;
        p.attempts++;
        if (!dispatch(p)) p.resolve(undefined);
      } else {
        p.resolve(why.kind === 'memory' ? { ok: false, kind: 'memory', message: `ran past its memory limit of ${p.job.memoryMb} MB` } : { ok: false, kind: 'crashed', message: why.message });
      }
    }
  }

  /** Keeps this process from holding the engine's event loop open while it has no work. */
  private setRef(on: boolean): void {
    const streams = [this.child, this.child.stdin, this.child.stdout, this.child.stderr] as unknown as { ref?: () => void; unref?: () => void }[];
    for (const s of streams) (on ? s.ref : s.unref)?.call(s);
  }
}

function live(): WarmProcess[] {
  return [...byKey.values()].flat().filter((w) => !w.dead && !w.ending);
}

/** Sends `p` to a warm process of its key, starting one when the caps allow; false when there is no room. */
function dispatch(p: Pending): boolean {
  const own = live().filter((w) => w.key === p.key && !w.retiring);
  const leastLoaded = own.sort((a, b) => a.pending.size - b.pending.size)[0];
  if (leastLoaded && leastLoaded.pending.size < settings.concurrency) {
    leastLoaded.send(p);
    return true;
  }
  if (own.length < settings.maxPerKey) {
    const all = live();
    if (all.length >= settings.maxTotal) {
      const idle = all.filter((w) => w.pending.size === 0).sort((a, b) => a.lastUsed - b.lastUsed)[0];
      idle?.kill();
    }
    if (live().length < settings.maxTotal) {
      const fresh = new WarmProcess(p.key, p.user);
      byKey.set(p.key, [...(byKey.get(p.key) ?? []), fresh]);
      fresh.send(p);
      return true;
    }
  }
  if (leastLoaded) {
    leastLoaded.send(p);
    return true;
  }
  return false;
}

/**
 * Runs one message in a warm process of `owner` (as `user`); `signal` stops it like the one-shot
 * sandbox. Never throws for the code's failures; resolves undefined when the pool has no room, and
 * the caller then runs the message in a one-shot process.
 * @throws Error when isolated-vm is missing (runnerPaths).
 */
export function runWarm(owner: SandboxOwner, user: SandboxUser | undefined, job: WarmJob, signal?: AbortSignal): Promise<SandboxResult | undefined> {
  return new Promise((resolve) => {
    const p: Pending = { id: ++nextId, key: poolKey(owner), user, job, attempts: 1, signal, resolve };
    if (!dispatch(p)) resolve(undefined);
  });
}

/** Changes the pool's limits (tests and benchmarks); omitted fields keep their value. */
export function configureWarmPool(next: Partial<WarmPoolSettings>): void {
  settings = { ...settings, ...next };
}

/** The live warm processes: owner key, pid, messages served and in flight (tests and metrics). */
export function warmPoolSnapshot(): { key: string; pid: number; served: number; inFlight: number }[] {
  return live().map((w) => ({ key: w.key, pid: w.pid, served: w.served, inFlight: w.pending.size }));
}

/** Processes started, recycled (after `maxMessages` or a memory kill) and messages sent again after a lost process. */
export function warmPoolCounters(): { spawned: number; recycled: number; retried: number } {
  return { ...counters };
}

/** Ends every warm process and restores the default limits (engine shutdown, tests). */
export function closeWarmPool(): void {
  for (const w of live()) w.kill();
  settings = { ...DEFAULTS };
}
