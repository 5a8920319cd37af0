/**
 * The process's drain state. A process drains when it is told to stop (SIGTERM, runtime/boot.ts):
 * it stops claiming new work, finishes or hands back what it holds, and reports not ready
 * (runtime/health.ts) so a load balancer or Kubernetes stops sending it anything meanwhile.
 */
import { processSingleton } from '../kernel/process-singleton';

/** One per process (kernel/process-singleton.ts): the signal handler and the readiness route may be in different bundles. */
const state = processSingleton('drain.v1', () => ({ reason: undefined as string | undefined }));

/** Marks this process draining; `why` is said by the readiness endpoint (e.g. `SIGTERM`). Idempotent: the first reason stays. */
export function markDraining(why: string): void {
  state.reason ??= why;
}

/** Why this process is draining, or undefined while it takes work. */
export function isDraining(): string | undefined {
  return state.reason;
}

/** Clears the drain state (tests that drain and resume in one process). */
export function resetDraining(): void {
  state.reason = undefined;
}
