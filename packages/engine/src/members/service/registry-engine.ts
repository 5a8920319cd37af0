/**
 * Which engine owns a database handle, so code that only receives the handle (the run finalizer)
 * can reach the queues when a child run's end must continue its parent. Engines register when
 * they process a batch, sweep, or serve the service API; a handle with no engine leaves the work
 * to the orchestrator's sweep.
 */
import type { Engine } from '../../kernel/engine';

const byDb = new WeakMap<object, Engine>();

/** Records `engine` as the owner of its database handle. */
export function registerEngine(engine: Engine): void {
  if (byDb.get(engine.db) !== engine) byDb.set(engine.db, engine);
}

/** The engine registered for this exact handle (never for an open transaction), or undefined. */
export function engineFor(db: object): Engine | undefined {
  return byDb.get(db);
}
