'use client';
/** Workflow members: a fixed sequence of steps (built-ins and heavy steps). */
import { memo } from 'react';
import type { Node, NodeProps } from '@xyflow/react';
import type { Step, WorkflowMember } from '@trellis/mesh/schema';
import { MemberShell } from '../nodes/member-shell';
import { WorkflowFields } from '../panels/workflow-fields';
import type { KindStyle, KindUi } from './types';

const style: KindStyle = { label: 'Workflow', icon: '▤', header: 'bg-sky-100 text-sky-900', hint: 'A fixed sequence of steps: split, map, pass' };

/** A step in a few words, as the node lists them. */
export function describeStep(s: Step): string {
  if (s.type === 'split') return `split by ${s.by}`;
  if (s.type === 'map') return `map ${Object.keys(s.fields).length} field${Object.keys(s.fields).length === 1 ? '' : 's'}`;
  if (s.type === 'email') return 'unpack email';
  return s.type;
}

function WorkflowNode({ data }: NodeProps<Node<{ member: WorkflowMember }, 'workflow'>>) {
  const steps = data.member.steps;
  return <MemberShell member={data.member} style={style}>{steps.length ? steps.map(describeStep).join(' → ') : 'no steps'}</MemberShell>;
}

export const workflowUi: KindUi<'workflow'> = {
  style,
  node: memo(WorkflowNode),
  Fields: WorkflowFields,
  defaults: (id) => ({ id, kind: 'workflow', steps: [{ type: 'pass' }] }),
  pooled: true,
};
