'use client';
/** Service members: an outside system that claims the step's jobs over REST and completes them. */
import { memo } from 'react';
import type { Node, NodeProps } from '@xyflow/react';
import type { ServiceMember } from '@trellis/mesh/schema';
import { inputClass } from '@/components/ui/button';
import { MemberShell } from '../nodes/member-shell';
import { Field } from '../panels/field';
import type { KindStyle, KindUi } from './types';

const style: KindStyle = { label: 'Service', icon: '⇄', header: 'bg-amber-100 text-amber-900', hint: 'An outside system that claims and completes the step' };

function ServiceNode({ data }: NodeProps<Node<{ member: ServiceMember }, 'service'>>) {
  const m = data.member;
  return (
    <MemberShell member={m} style={style}>
      service <span className="font-mono">{m.service}</span>
      {m.claimTimeoutSeconds !== undefined && <span> · claim within {m.claimTimeoutSeconds} s</span>}
    </MemberShell>
  );
}

function ServiceFields({ member, onChange }: { member: ServiceMember; onChange: (m: ServiceMember) => void }) {
  return (
    <>
      <Field label="Service name" hint="The outside system that claims and completes this step; register it with `trellis service add <name>`.">
        <input className={inputClass} value={member.service} data-testid="member-service"
          onChange={(e) => onChange({ ...member, service: e.target.value })} />
      </Field>
      <Field label="Claim within (seconds)" hint="Fails with “no worker” when the service claims no job in time. Empty: 300 s.">
        <input type="number" min={1} step={1} className={inputClass} value={member.claimTimeoutSeconds ?? ''} data-testid="member-claim-timeout"
          onChange={(e) => {
            const { claimTimeoutSeconds: _c, ...rest } = member;
            const n = e.target.valueAsNumber;
            onChange(Number.isNaN(n) ? rest : { ...rest, claimTimeoutSeconds: n });
          }} />
      </Field>
    </>
  );
}

export const serviceUi: KindUi<'service'> = {
  style,
  node: memo(ServiceNode),
  Fields: ServiceFields,
  defaults: (id) => ({ id, kind: 'service', service: 'my-service' }),
  pooled: true,
};
