/**
 * Every member kind's handler, keyed by kind. A kind added to the mesh schema (`MemberKind`)
 * without a handler here fails to compile ("Property '<kind>' is missing in type …"), and so does
 * a handler whose hooks do not fit its kind (members/kinds.test.ts).
 */
import type { CombineMember, Member, MemberKind } from '@trellis/mesh/schema';
import type { Item } from '../plan/frames';
import { agentKind } from './agent/handler';
import { combineKind } from './combine/handler';
import { meshKind } from './mesh/handler';
import { serviceKind } from './service/handler';
import type { Incoming, KindHandler, KindHandlers, Lane } from './types';
import { workflowKind } from './workflow/handler';

/** The handlers; their order is the order run-end hooks are called in. */
export const KINDS = {
  agent: agentKind,
  workflow: workflowKind,
  mesh: meshKind,
  service: serviceKind,
  combine: combineKind,
} satisfies KindHandlers;

/** The handler of `member`'s kind. */
export function kindOf(member: Member): KindHandler<MemberKind> {
  // `member.kind` picks the handler of that very kind, which the compiler cannot correlate through
  // an index; KindHandler's methods take their parameters bivariantly, so this widening is sound.
  return KINDS[member.kind] as KindHandler<MemberKind>;
}

/** The lane of `member`'s messages. */
export function laneOf(member: Member): Lane {
  return kindOf(member).lane(member);
}

/** `member` as the join lane's member, or undefined when its messages are not joined. */
export function joinMember(member: Member | undefined): CombineMember | undefined {
  return member?.kind === 'combine' ? member : undefined;
}

/**
 * Runs `member` on one message in place (its kind's `execute`).
 * @throws StepError with the member's cause.
 */
export function executeMember(member: Member, msg: Incoming): Item[] {
  return kindOf(member).execute(member, msg);
}
