/**
 * The entry points' background work, on a loop of its own beside the orchestrator's pass (a slow
 * callback URL never holds up the relay or the stall detector): due schedule ticks, then owed
 * webhook callbacks. Both are safe with any number of orchestrators running.
 */
import type { Engine } from '../kernel/engine';
import { repeat, type RunningLoop } from '../kernel/loop';
import { runDueSchedules } from '../schedules/run-schedules';
import { deliverCallbacks, type CallbackPassOptions } from '../webhooks/callbacks';

/** Starts the loop: a pass every `everyMs` (default 1 000) after the previous one ends. */
export function startEntryLoops(engine: Engine, options: { everyMs?: number; callbacks?: CallbackPassOptions } = {}): RunningLoop {
  const pass = async () => {
    await runDueSchedules(engine);
    await deliverCallbacks(engine, options.callbacks);
  };
  return repeat(pass, options.everyMs ?? 1000, engine.log, 'entry loop pass failed');
}
