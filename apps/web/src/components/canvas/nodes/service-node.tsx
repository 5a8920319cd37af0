'use client';
import type { Node, NodeProps } from '@xyflow/react';
import { memo } from 'react';
import type { ServiceMember } from '@trellis/mesh/schema';
import { MemberShell } from './member-shell';

function ServiceNode({ data }: NodeProps<Node<{ member: ServiceMember }, 'service'>>) {
  const m = data.member;
  return (
    <MemberShell member={m}>
      service <span className="font-mono">{m.service}</span>
      {m.claimTimeoutSeconds !== undefined && <span> · claim within {m.claimTimeoutSeconds} s</span>}
    </MemberShell>
  );
}

export default memo(ServiceNode);
