'use client';
/** The side panel for the selected member: id, label, head, description and its kind's settings. */
import { useState } from 'react';
import type { Member } from '@trellis/mesh/schema';
import { IdSchema } from '@trellis/mesh/schema';
import { buttonClass, inputClass } from '@/components/ui/button';
import { kindUi } from '../kinds/kind-ui';
import { Field, optional, withKey } from './field';

interface Props {
  member: Member;
  takenIds: ReadonlySet<string>;
  meshNames: readonly string[];
  onChange: (id: string, m: Member) => void;
  onRemove: (id: string) => void;
}

export function MemberPanel({ member, takenIds, meshNames, onChange, onRemove }: Props) {
  const set = (m: Member) => onChange(member.id, m);
  const ui = kindUi(member.kind);
  const KindFields = ui.Fields;
  return (
    <div className="space-y-4" data-testid="member-panel" data-member={member.id}>
      <div className="flex items-center justify-between">
        <h2 className="text-sm font-semibold">{ui.style.label} settings</h2>
        <button type="button" className={buttonClass.danger} onClick={() => onRemove(member.id)} data-testid="member-remove">Delete</button>
      </div>
      <IdField key={member.id} id={member.id} takenIds={takenIds} onCommit={(id) => set({ ...member, id })} />
      <Field label="Label" hint="A name for people; the id stays the stable name.">
        <input className={inputClass} value={member.label ?? ''} data-testid="member-label"
          onChange={(e) => set(withKey(member, 'label', optional(e.target.value)))} />
      </Field>
      <label className="flex items-start gap-2 text-sm">
        <input type="checkbox" className="mt-0.5" checked={member.head ?? false} data-testid="member-head"
          onChange={(e) => set(withKey(member, 'head', e.target.checked ? true : undefined))} />
        <span>
          <span className="font-medium text-slate-700">Head</span>
          <span className="block text-xs text-slate-500">Receives the run's input. A mesh has exactly one head.</span>
        </span>
      </label>
      <label className="flex items-start gap-2 text-sm">
        <input type="checkbox" className="mt-0.5" checked={member.approval === 'required'} data-testid="member-approval"
          onChange={(e) => set(withKey(member, 'approval', e.target.checked ? 'required' : undefined))} />
        <span>
          <span className="font-medium text-slate-700">Approval required</span>
          <span className="block text-xs text-slate-500">Its output waits in the Action Center until a person approves or rejects it.</span>
        </span>
      </label>
      <Field label="Description">
        <textarea className={`${inputClass} min-h-16`} value={member.description ?? ''} data-testid="member-description"
          onChange={(e) => set(withKey(member, 'description', optional(e.target.value)))} />
      </Field>
      {ui.pooled && (
        <Field label="Worker pool" hint={IdSchema.safeParse(member.pool ?? 'default').success
          ? 'The pool whose workers run this member; empty means “default”. Start a pool with trellis worker --pool NAME.'
          : <span className="text-red-700" data-testid="member-pool-error">1–63 letters, digits, “-” or “_”</span>}>
          <input className={`${inputClass} font-mono`} value={member.pool ?? ''} placeholder="default" data-testid="member-pool"
            onChange={(e) => set(withKey(member, 'pool', optional(e.target.value.trim())))} />
        </Field>
      )}
      <hr className="border-slate-200" />
      <KindFields member={member} meshNames={meshNames} onChange={set} />
    </div>
  );
}

/** The id is committed on Enter or leaving the box, and only when valid and free, so ids never collide. */
function IdField({ id, takenIds, onCommit }: { id: string; takenIds: ReadonlySet<string>; onCommit: (id: string) => void }) {
  const [draft, setDraft] = useState(id);
  const problem =
    draft === id ? null
      : !IdSchema.safeParse(draft).success ? '1–63 letters, digits, “-” or “_”, starting with a letter or digit'
        : takenIds.has(draft) ? 'another member already has this id'
          : null;
  const commit = () => {
    if (draft !== id && !problem) onCommit(draft);
  };
  return (
    <Field label="Id" hint={problem ? <span className="text-red-700" data-testid="member-id-error">{problem}</span> : 'Channels and findings name the member by its id.'}>
      <input className={`${inputClass} font-mono`} value={draft} data-testid="member-id"
        onChange={(e) => setDraft(e.target.value.trim())} onBlur={commit}
        onKeyDown={(e) => { if (e.key === 'Enter') commit(); if (e.key === 'Escape') setDraft(id); }} />
    </Field>
  );
}
