'use client';
/** Combine members: the keyed join of a split's parts, fired once when all are in. */
import { memo } from 'react';
import type { Node, NodeProps } from '@xyflow/react';
import type { CombineMember, Merge } from '@trellis/mesh/schema';
import { inputClass } from '@/components/ui/button';
import { MemberShell } from '../nodes/member-shell';
import { Field, optional } from '../panels/field';
import type { KindStyle, KindUi } from './types';

const style: KindStyle = { label: 'Combine', icon: '⋈', header: 'bg-rose-100 text-rose-900', hint: 'Joins the parts of a split, in order, once complete' };

function CombineNode({ data }: NodeProps<Node<{ member: CombineMember }, 'combine'>>) {
  const { merge, key } = data.member;
  return (
    <MemberShell member={data.member} style={style}>
      {merge.type === 'concat' ? `concatenate ${merge.field}` : `collect into ${merge.into}`}
      {key && <span> · per {key}</span>}
    </MemberShell>
  );
}

function CombineFields({ member, onChange }: { member: CombineMember; onChange: (m: CombineMember) => void }) {
  const { merge } = member;
  const setMerge = (m: Merge) => onChange({ ...member, merge: m });
  return (
    <>
      <Field label="Merge" hint="Parts arrive in order; the combine fires once when all parts of a split are in.">
        <select className={inputClass} value={merge.type} data-testid="member-merge"
          onChange={(e) => setMerge(e.target.value === 'concat' ? { type: 'concat', field: 'text' } : { type: 'collect', into: 'parts' })}>
          <option value="concat">Concatenate a text field</option>
          <option value="collect">Collect every part into a list</option>
        </select>
      </Field>
      {merge.type === 'concat' ? (
        <Field label="Text field">
          <input className={inputClass} value={merge.field} data-testid="member-merge-field" onChange={(e) => setMerge({ ...merge, field: e.target.value })} />
        </Field>
      ) : (
        <Field label="List field">
          <input className={inputClass} value={merge.into} data-testid="member-merge-into" onChange={(e) => setMerge({ ...merge, into: e.target.value })} />
        </Field>
      )}
      <Field label="Key field (optional)" hint="A payload field naming each group for people, e.g. claim_id.">
        <input className={inputClass} value={member.key ?? ''} data-testid="member-key"
          onChange={(e) => {
            const { key: _k, ...rest } = member;
            const key = optional(e.target.value);
            onChange(key === undefined ? rest : { ...rest, key });
          }} />
      </Field>
    </>
  );
}

export const combineUi: KindUi<'combine'> = {
  style,
  node: memo(CombineNode),
  Fields: CombineFields,
  defaults: (id) => ({ id, kind: 'combine', merge: { type: 'concat', field: 'text' } }),
  // Combines run inside the commit transaction of the part that completes the join: no worker pool.
  pooled: false,
};
