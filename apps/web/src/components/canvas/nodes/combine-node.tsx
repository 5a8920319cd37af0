'use client';
import type { Node, NodeProps } from '@xyflow/react';
import { memo } from 'react';
import type { CombineMember } from '@trellis/mesh/schema';
import { MemberShell } from './member-shell';

function CombineNode({ data }: NodeProps<Node<{ member: CombineMember }, 'combine'>>) {
  const { merge, key } = data.member;
  return (
    <MemberShell member={data.member}>
      {merge.type === 'concat' ? `concatenate ${merge.field}` : `collect into ${merge.into}`}
      {key && <span> · per {key}</span>}
    </MemberShell>
  );
}

export default memo(CombineNode);
