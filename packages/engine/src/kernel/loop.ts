/** A background pass repeated on its own timer, each pass starting `everyMs` after the last ended. */
import type { Logger } from './log';

/** A running loop. */
export interface RunningLoop {
  /** Waits for the pass in progress, then runs one more now (tests, the CLI). */
  tick(): Promise<void>;
  /** Stops after the pass in progress. */
  close(): Promise<void>;
}

/**
 * Runs `pass` now and then every `everyMs` after each one ends. A failing pass is logged as `what`
 * once per new error message (a persisting outage is not logged every second), never thrown.
 */
export function repeat(pass: () => Promise<unknown>, everyMs: number, log: Logger, what: string): RunningLoop {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let current: Promise<void> = Promise.resolve();
  let lastProblem = '';
  const guarded = async () => {
    try {
      await pass();
      lastProblem = '';
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      if (message !== lastProblem) log.warn(what, { error: message });
      lastProblem = message;
    }
  };
  const loop = () => {
    if (stopped) return;
    current = guarded().finally(() => {
      if (!stopped) timer = setTimeout(loop, everyMs);
    });
  };
  timer = setTimeout(loop, 0);
  return {
    async tick() {
      await current;
      current = guarded();
      await current;
    },
    async close() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await current;
    },
  };
}
