'use client';
import type { Node, NodeProps } from '@xyflow/react';
import { memo } from 'react';
import type { NestedMeshMember } from '@trellis/mesh/schema';
import { MemberShell } from './member-shell';

function MeshNode({ data }: NodeProps<Node<{ member: NestedMeshMember }, 'mesh'>>) {
  return (
    <MemberShell member={data.member}>
      runs <span className="font-mono">{data.member.mesh}</span>
    </MemberShell>
  );
}

export default memo(MeshNode);
