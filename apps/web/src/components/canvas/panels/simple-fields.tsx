'use client';
/** The settings of nested mesh, service and combine members: a field or two each. */
import type { CombineMember, Merge, NestedMeshMember, ServiceMember } from '@trellis/mesh/schema';
import { inputClass } from '@/components/ui/button';
import { Field, optional } from './field';

export function NestedMeshFields({ member, meshNames, onChange }: { member: NestedMeshMember; meshNames: readonly string[]; onChange: (m: NestedMeshMember) => void }) {
  return (
    <Field label="Mesh to run" hint="The child run uses that mesh's latest saved version; this member waits for it.">
      <input className={inputClass} list="trellis-mesh-names" value={member.mesh} data-testid="member-mesh"
        onChange={(e) => onChange({ ...member, mesh: e.target.value })} />
      <datalist id="trellis-mesh-names">
        {meshNames.map((n) => <option key={n} value={n} />)}
      </datalist>
    </Field>
  );
}

export function ServiceFields({ member, onChange }: { member: ServiceMember; onChange: (m: ServiceMember) => void }) {
  return (
    <>
      <Field label="Service name" hint="The outside system that claims and completes this step.">
        <input className={inputClass} value={member.service} data-testid="member-service"
          onChange={(e) => onChange({ ...member, service: e.target.value })} />
      </Field>
      <Field label="Claim within (seconds)" hint="Fails with “no worker” when nobody claims the job in time. Empty: no limit.">
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

export function CombineFields({ member, onChange }: { member: CombineMember; onChange: (m: CombineMember) => void }) {
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
