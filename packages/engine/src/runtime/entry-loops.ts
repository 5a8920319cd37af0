/**
 * The entry points' background work, on a loop of its own beside the orchestrator's pass (a slow
 * callback URL never holds up the relay or the stall detector): due schedule ticks, then owed
 * webhook callbacks. Both are safe with any number of orchestrators running; under a lease
 * (runtime/leader.ts) only the leader's loop does them, its schedule firings fenced.
 */
import type { Engine } from '../kernel/engine';
import type { Fence } from '../kernel/fence';
import type { Leadership } from './leader';
import { repeat, type RunningLoop } from '../kernel/loop';
import { runDueSchedules } from '../schedules/run-schedules';
import { deliverCallbacks, type CallbackPassOptions } from '../webhooks/callbacks';

/**
 * Starts the loop: a pass every `everyMs` (default 1 000) after the previous one ends; with
 * `leadership`, a pass only while it leads, carrying its fence.
 */
export function startEntryLoops(engine: Engine, options: { everyMs?: number; callbacks?: CallbackPassOptions; leadership?: Leadership } = {}): RunningLoop {
  const pass = async () => {
    const { leadership } = options;
    if (leadership && !leadership.isLeader()) return;
    const fence: Fence | undefined = leadership?.fence();
    await runDueSchedules(engine, new Date(), fence);
    await deliverCallbacks(engine, options.callbacks);
  };
  return repeat(pass, options.everyMs ?? 1000, engine.log, 'entry loop pass failed');
}
