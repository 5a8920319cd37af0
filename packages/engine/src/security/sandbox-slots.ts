/**
 * How many code sandboxes one worker process runs at once, and how much memory they may take
 * together: TRELLIS_MAX_SANDBOXES processes and TRELLIS_SANDBOX_MEMORY_MB megabytes, each sandbox
 * reserving its step's `memoryMb` plus what a Node process with isolated-vm takes before the code
 * runs. A step waits (first come, first served) until both fit; one that could never fit is refused.
 */
import { LimitExceededError } from '../kernel/errors';
import { LIMIT_VARIABLE, limits } from './env';

/**
 * Resident memory of a sandbox process before its code allocates anything (Node, isolated-vm and
 * an isolate running a busy loop), in MB: 66 MB measured on Linux x64 with Node 20, of which the
 * isolate's few MB also count against `memoryMb`; so 64.
 */
export const SANDBOX_PROCESS_MB = 64;

interface Waiter {
  mb: number;
  grant: () => void;
}

let running = 0;
let reservedMb = 0;
const queue: Waiter[] = [];

/** What this process's sandboxes hold now (for tests and metrics). */
export function sandboxUse(): { running: number; reservedMb: number; waiting: number } {
  return { running, reservedMb, waiting: queue.length };
}

function fits(mb: number): boolean {
  const cap = limits();
  return running < cap.maxSandboxes && reservedMb + mb <= cap.sandboxMemoryMb;
}

function admit(mb: number): () => void {
  running++;
  reservedMb += mb;
  let released = false;
  return () => {
    if (released) return;
    released = true;
    running--;
    reservedMb -= mb;
    while (queue.length > 0 && fits((queue[0] as Waiter).mb)) (queue.shift() as Waiter).grant();
  };
}

/**
 * Waits for room for one sandbox whose code may use `memoryMb`, and returns the function that gives
 * the room back (call it once the process has exited; calling it again does nothing).
 * @throws LimitExceededError naming TRELLIS_SANDBOX_MEMORY_MB when the sandbox alone is larger than
 *   the total; the signal's reason when it aborts while waiting.
 */
export function acquireSandbox(memoryMb: number, signal?: AbortSignal): Promise<() => void> {
  const mb = memoryMb + SANDBOX_PROCESS_MB;
  const total = limits().sandboxMemoryMb;
  if (mb > total) {
    return Promise.reject(
      new LimitExceededError(LIMIT_VARIABLE.sandboxMemoryMb, total, `a code sandbox needs ${mb} MB (${memoryMb} MB for the code), over ${LIMIT_VARIABLE.sandboxMemoryMb} (${total} MB)`),
    );
  }
  if (signal?.aborted) return Promise.reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
  if (queue.length === 0 && fits(mb)) return Promise.resolve(admit(mb));
  return new Promise((resolve, reject) => {
    const waiter: Waiter = {
      mb,
      grant: () => {
        signal?.removeEventListener('abort', onAbort);
        resolve(admit(mb));
      },
    };
    const onAbort = () => {
      const i = queue.indexOf(waiter);
      if (i >= 0) queue.splice(i, 1);
      reject(signal?.reason instanceof Error ? signal.reason : new Error('aborted'));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    queue.push(waiter);
  });
}
