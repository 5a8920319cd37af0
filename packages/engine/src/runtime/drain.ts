/**
 * The process's drain state. A process drains when it is told to stop (SIGTERM, runtime/boot.ts):
 * it stops claiming new work, finishes or hands back what it holds, and reports not ready
 * (runtime/health.ts) so a load balancer or Kubernetes stops sending it anything meanwhile.
 */

let reason: string | undefined;

/** Marks this process draining; `why` is said by the readiness endpoint (e.g. `SIGTERM`). Idempotent: the first reason stays. */
export function markDraining(why: string): void {
  reason ??= why;
}

/** Why this process is draining, or undefined while it takes work. */
export function isDraining(): string | undefined {
  return reason;
}

/** Clears the drain state (tests that drain and resume in one process). */
export function resetDraining(): void {
  reason = undefined;
}
