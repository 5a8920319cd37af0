import { describe, expect, it } from 'vitest';
import { MemberSchema, type MemberKind } from '@trellis/mesh/schema';
import { KINDS, laneOf } from './index';
import { agentKind } from './agent/handler';
import { combineKind } from './combine/handler';
import { meshKind } from './mesh/handler';
import { serviceKind } from './service/handler';
import type { KindHandler, KindHandlers } from './types';
import { workflowKind } from './workflow/handler';

describe('member kinds', () => {
  it('a kind without a handler, or a handler of the wrong kind, does not compile', () => {
    // @ts-expect-error Property 'combine' is missing: every MemberKind needs a handler.
    const missing: KindHandlers = { agent: agentKind, workflow: workflowKind, mesh: meshKind, service: serviceKind };
    // @ts-expect-error a service handler cannot serve the combine kind (its hooks take a ServiceMember).
    const wrong: KindHandlers = { agent: agentKind, workflow: workflowKind, mesh: meshKind, service: serviceKind, combine: serviceKind };
    // @ts-expect-error a handler must declare its lane.
    const laneless: KindHandler<'combine'> = { execute: combineKind.execute };
    expect([missing, wrong, laneless]).toHaveLength(3);
  });

  it('declares one handler per kind of the mesh schema', () => {
    const kinds = MemberSchema.options.map((o) => o.shape.kind.value) satisfies MemberKind[];
    expect(Object.keys(KINDS).sort()).toEqual([...kinds].sort());
  });

  it('puts each kind in the lane the delivery path expects', () => {
    const lane = (raw: unknown) => laneOf(MemberSchema.parse(raw));
    expect(lane({ id: 'a', kind: 'agent', model: 'demo' })).toBe('heavy');
    expect(lane({ id: 'w', kind: 'workflow', steps: [{ type: 'pass' }] })).toBe('inline');
    expect(lane({ id: 'w', kind: 'workflow', steps: [{ type: 'code', source: 'return payload' }] })).toBe('heavy');
    expect(lane({ id: 'm', kind: 'mesh', mesh: 'inner' })).toBe('park');
    expect(lane({ id: 's', kind: 'service', service: 'records' })).toBe('park');
    expect(lane({ id: 'c', kind: 'combine' })).toBe('join');
  });
});
