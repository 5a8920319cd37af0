/** Running a code sandbox inside this worker's sandbox caps (security/sandbox-slots.ts). */
import type { CodeStep } from '@trellis/mesh/schema';
import { LimitExceededError, StepError } from '../kernel/errors';
import { acquireSandbox } from './sandbox-slots';

/**
 * Waits for a sandbox slot for `step`, runs `run` in it and gives the slot back.
 * @throws StepError `step_code_failed` (not retryable) when the step could never fit the memory cap,
 *   naming the cap; `timed_out` when `signal` aborts while the step waits for a slot.
 */
export async function withSandboxSlot<T>(memberId: string, step: CodeStep, signal: AbortSignal | undefined, run: () => Promise<T>): Promise<T> {
  let release: () => void;
  try {
    release = await acquireSandbox(step.memoryMb, signal);
  } catch (err) {
    if (err instanceof LimitExceededError) throw new StepError('step_code_failed', memberId, `its code step was refused: ${err.message}`, false);
    throw new StepError('timed_out', memberId, 'its code step was stopped while waiting for a free code sandbox');
  }
  try {
    return await run();
  } finally {
    release();
  }
}
