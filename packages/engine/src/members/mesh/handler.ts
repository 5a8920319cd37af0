/**
 * The nested-mesh kind: a message parks as a child run of the named mesh (members/mesh/child.ts);
 * the child's end continues or fails it (members/mesh/resume.ts).
 */
import { enqueue, type Outgoing } from '../../kernel/queues';
import { countMessages } from '../../kernel/metrics';
import { StepError } from '../../kernel/errors';
import type { Engine } from '../../kernel/engine';
import type { NestedMeshMember } from '@trellis/mesh/schema';
import { passVoidOnly } from '../parked';
import type { KindHandler, ParkCheck } from '../types';
import { afterRunsEnded, resumeEndedChildren } from './resume';
import { insertChildRun, NESTING_LIMIT, nestingDepth, resolveChildMesh, type ChildMesh } from './child';

/** Lane `park`: a child run per parked message, its head's job added after commit. */
export const meshKind: KindHandler<'mesh'> = {
  lane: () => 'park',
  execute: passVoidOnly,
  park: {
    check: checkNested,
    async park(tx, engine, parked) {
      const heads: Outgoing[] = [];
      for (const { msg, checked } of parked) {
        const child = checked as ChildMesh | undefined;
        if (!child) continue;
        const head = await insertChildRun(tx, { parentRunId: msg.runId, parentMessageId: msg.id, createdBy: msg.createdBy, payload: msg.payload, child });
        if (head) heads.push({ pool: head.pool, runId: head.runId, messageId: head.messageId, member: head.member });
      }
      return async () => {
        countMessages('published', heads.length);
        // The child heads' jobs; the relay re-adds them if this fails.
        try {
          await enqueue(engine, heads);
        } catch (err) {
          engine.log.warn('child run heads left for the relay', { error: err instanceof Error ? err.message : String(err) });
        }
      };
    },
  },
  onRunEnded: afterRunsEnded,
  sweep: resumeEndedChildren,
  resume(member, parked, answer) {
    // `output: 'merge'` spreads the child's answer over the parent's payload.
    return member.output === 'merge' && isRecord(answer) && isRecord(parked) ? { ...parked, ...answer } : answer;
  },
};

/** Resolves a nested member's mesh and checks the nesting depth of the run it would nest under. */
async function checkNested(engine: Engine, runId: string, member: NestedMeshMember): Promise<ParkCheck> {
  try {
    const depth = await nestingDepth(engine.db, runId);
    if (depth + 1 > NESTING_LIMIT) {
      return {
        ok: false,
        error: new StepError(
          'budget_spent',
          member.id,
          `nested meshes went deeper than ${NESTING_LIMIT} levels at mesh ${member.mesh}, which points to a nesting cycle`,
          false,
        ),
      };
    }
    return { ok: true, data: await resolveChildMesh(engine, member) };
  } catch (err) {
    if (err instanceof StepError) return { ok: false, error: err };
    throw err;
  }
}

function isRecord(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}
