'use client';
/** Nested-mesh members: another saved mesh, run as a child run on the member's message. */
import { memo } from 'react';
import type { Node, NodeProps } from '@xyflow/react';
import type { NestedMeshMember } from '@trellis/mesh/schema';
import { inputClass } from '@/components/ui/button';
import { MemberShell } from '../nodes/member-shell';
import { Field } from '../panels/field';
import type { KindStyle, KindUi } from './types';

const style: KindStyle = { label: 'Nested mesh', icon: '◎', header: 'bg-emerald-100 text-emerald-900', hint: 'Another mesh, run as a child run' };

function MeshNode({ data }: NodeProps<Node<{ member: NestedMeshMember }, 'mesh'>>) {
  return (
    <MemberShell member={data.member} style={style}>
      runs <span className="font-mono">{data.member.mesh}</span>
    </MemberShell>
  );
}

function NestedMeshFields({ member, meshNames, onChange }: { member: NestedMeshMember; meshNames: readonly string[]; onChange: (m: NestedMeshMember) => void }) {
  // A name no longer saved (or not saved yet) stays selectable, so the member keeps its value.
  const names = meshNames.includes(member.mesh) || member.mesh === '' ? meshNames : [member.mesh, ...meshNames];
  return (
    <>
      <Field label="Mesh to run" hint="Runs as a child run on this member's message, using the mesh's latest saved version when the message arrives; this member is parked until the child run ends.">
        <select className={inputClass} value={member.mesh} data-testid="member-mesh"
          onChange={(e) => onChange({ ...member, mesh: e.target.value })}>
          {member.mesh === '' && <option value="">Choose a saved mesh…</option>}
          {names.map((n) => <option key={n} value={n}>{meshNames.includes(n) ? n : `${n} (not saved)`}</option>)}
        </select>
      </Field>
      <Field label="Child's answer" hint="Replace: the child run's output becomes the payload. Merge: an object output is spread over this message's payload.">
        <select className={inputClass} value={member.output ?? 'replace'} data-testid="member-mesh-output"
          onChange={(e) => {
            const { output: _o, ...rest } = member;
            onChange(e.target.value === 'merge' ? { ...rest, output: 'merge' } : rest);
          }}>
          <option value="replace">Replace the payload</option>
          <option value="merge">Merge over the payload</option>
        </select>
      </Field>
    </>
  );
}

export const meshUi: KindUi<'mesh'> = {
  style,
  node: memo(MeshNode),
  Fields: NestedMeshFields,
  defaults: (id, { nestedDefault }) => ({ id, kind: 'mesh', mesh: nestedDefault }),
  pooled: true,
};
