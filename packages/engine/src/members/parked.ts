/** Behaviour shared by the kinds whose messages park (service, mesh). */
import type { MemberKind } from '@trellis/mesh/schema';
import { StepError } from '../kernel/errors';
import type { Item } from '../plan/frames';
import type { Incoming, MemberOf } from './types';

/**
 * `execute` of a parking kind: a void message passes through; a real one never runs in place.
 * @throws StepError `step_code_failed` (not retryable) for a real message that reached here instead of parking.
 */
export function passVoidOnly<K extends MemberKind>(member: MemberOf<K>, msg: Incoming): Item[] {
  if (msg.void) return [{ payload: msg.payload, frames: msg.frames, void: msg.void }];
  throw new StepError('step_code_failed', member.id, `a ${member.kind} member's message parks (process/park.ts) and is never run in place`, false);
}
