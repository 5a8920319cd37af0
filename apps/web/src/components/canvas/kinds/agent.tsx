'use client';
/** Agent members: an LLM with instructions and its own model. */
import { memo } from 'react';
import type { Node, NodeProps } from '@xyflow/react';
import type { AgentMember } from '@trellis/mesh/schema';
import { MemberShell } from '../nodes/member-shell';
import { AgentFields } from '../panels/agent-fields';
import type { KindStyle, KindUi } from './types';

const style: KindStyle = { label: 'Agent', icon: '✦', header: 'bg-violet-100 text-violet-900', hint: 'An LLM with instructions and its own model' };

function AgentNode({ data }: NodeProps<Node<{ member: AgentMember }, 'agent'>>) {
  const m = data.member;
  return (
    <MemberShell member={m} style={style}>
      <span className="font-mono">{m.model}</span>
      {m.temperature !== undefined && <span> · t={m.temperature}</span>}
    </MemberShell>
  );
}

export const agentUi: KindUi<'agent'> = {
  style,
  node: memo(AgentNode),
  Fields: AgentFields,
  defaults: (id) => ({ id, kind: 'agent', model: 'demo', instructions: '' }),
  pooled: true,
};
