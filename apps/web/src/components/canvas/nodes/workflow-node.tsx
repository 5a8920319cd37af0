'use client';
import type { Node, NodeProps } from '@xyflow/react';
import { memo } from 'react';
import type { Step, WorkflowMember } from '@trellis/mesh/schema';
import { MemberShell } from './member-shell';

export function describeStep(s: Step): string {
  if (s.type === 'split') return `split by ${s.by}`;
  if (s.type === 'map') return `map ${Object.keys(s.fields).length} field${Object.keys(s.fields).length === 1 ? '' : 's'}`;
  if (s.type === 'email') return 'unpack email';
  return s.type;
}

function WorkflowNode({ data }: NodeProps<Node<{ member: WorkflowMember }, 'workflow'>>) {
  const steps = data.member.steps;
  return <MemberShell member={data.member}>{steps.length ? steps.map(describeStep).join(' → ') : 'no steps'}</MemberShell>;
}

export default memo(WorkflowNode);
