/**
 * The orchestrator's pass over parked work: every member kind's `sweep` hook (members/index.ts),
 * e.g. service jobs nobody claimed in time, child runs that ended while their parent stayed parked.
 */
import type { Engine } from '../kernel/engine';
import { KINDS } from '../members/index';
import { deadLetter } from './dead-letter';
import { RUN_END_ACTIONS } from './run-end';

/** One pass over every kind's parked work. */
export async function sweepParked(engine: Engine): Promise<void> {
  for (const kind of Object.values(KINDS)) {
    if ('sweep' in kind && kind.sweep) await kind.sweep({ engine, deadLetter, ...RUN_END_ACTIONS });
  }
}
