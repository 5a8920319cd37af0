/**
 * Process-wide state that survives the engine's modules being loaded more than once in one process.
 *
 * The web server's bundler builds its startup hook (apps/web/src/instrumentation.ts, which starts the
 * in-process orchestrator and worker) and its routes as separate chunks, each with its own copy of
 * every engine module. State kept in a plain module-level variable then exists twice: the worker
 * writes one copy (its heartbeat, its metrics) and the routes read the other (admission finds no
 * worker, /api/metrics shows no work). State that must be one per process lives here instead, on
 * `globalThis` under a registered symbol (`Symbol.for('trellis.<key>')`), which every copy of this
 * module resolves to the same slot. The same approach as `@opentelemetry/api`'s global registry.
 */

/**
 * The one value of `key` in this process: made by `make` on first use, then returned as is to
 * every caller, from any copy of the calling module. `key` names the state (e.g. `heartbeats`);
 * callers asking for the same key must agree on its shape, so a changed shape takes a new key.
 * @throws whatever `make` throws (nothing is stored then, and the next call tries again).
 */
export function processSingleton<T>(key: string, make: () => T): T {
  const slot = Symbol.for(`trellis.${key}`);
  const store = globalThis as unknown as Record<symbol, T | undefined>;
  if (!(slot in store)) store[slot] = make();
  return store[slot] as T;
}
