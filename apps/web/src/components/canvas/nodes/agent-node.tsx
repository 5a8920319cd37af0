'use client';
import type { NodeProps } from '@xyflow/react';
import { memo } from 'react';
import type { Node } from '@xyflow/react';
import type { AgentMember } from '@trellis/mesh/schema';
import { MemberShell } from './member-shell';

function AgentNode({ data }: NodeProps<Node<{ member: AgentMember }, 'agent'>>) {
  const m = data.member;
  return (
    <MemberShell member={m}>
      <span className="font-mono">{m.model}</span>
      {m.temperature !== undefined && <span> · t={m.temperature}</span>}
    </MemberShell>
  );
}

export default memo(AgentNode);
