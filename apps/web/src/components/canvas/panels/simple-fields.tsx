'use client';
/** The settings of nested mesh, service and combine members: a field or two each. */
import type { CombineMember, Merge, NestedMeshMember, ServiceMember } from '@trellis/mesh/schema';
import { inputClass } from '@/components/ui/button';
import { Field, optional } from './field';

export function NestedMeshFields({ member, meshNames, onChange }: { member: NestedMeshMember; meshNames: readonly string[]; onChange: (m: NestedMeshMember) => void }) {
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

export function ServiceFields({ member, onChange }: { member: ServiceMember; onChange: (m: ServiceMember) => void }) {
  return (
    <>
      <Field label="Service name" hint="The outside system that claims and completes this step; register it with `trellis service add <name>`.">
        <input className={inputClass} value={member.service} data-testid="member-service"
          onChange={(e) => onChange({ ...member, service: e.target.value })} />
      </Field>
      <Field label="Claim within (seconds)" hint="Fails with “no worker” when the service claims no job in time. Empty: 300 s.">
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
