'use client';
/** Settings of an `email` workflow step: where the raw message is, and where each file's id comes from. */
import { useState } from 'react';
import type { EmailStep } from '@trellis/mesh/schema';
import { inputClass } from '@/components/ui/button';
import { Field, optional } from './field';

type Id = NonNullable<EmailStep['id']>;

export function EmailSettings({ step, id, onChange }: { step: EmailStep; id: string; onChange: (s: EmailStep) => void }) {
  // The draft keeps a field name typed before any header or pattern, which the file cannot hold yet.
  const [draft, setDraft] = useState<Id>(step.id ?? { field: 'claim_id' });
  const given = step.id ?? draft;
  // Both blank: no id is copied (the schema wants a header or a pattern when `id` is present).
  const setId = (next: Partial<Id>) => {
    const merged = { ...given, ...next };
    setDraft(merged);
    onChange({ ...step, id: merged.header === undefined && merged.pattern === undefined ? undefined : merged });
  };
  return (
    <div className="space-y-2 pl-6">
      <Field label="Email field" hint="The payload field holding the .eml text; an upload that is not UTF-8 arrives as base64 in the field below.">
        <div className="grid grid-cols-2 gap-2">
          <input className={inputClass} value={step.field} data-testid={`${id}-field`} onChange={(e) => onChange({ ...step, field: e.target.value })} />
          <input className={inputClass} value={step.base64Field} title="Base64 field" data-testid={`${id}-base64`} onChange={(e) => onChange({ ...step, base64Field: e.target.value })} />
        </div>
      </Field>
      <Field label="Id of the email" hint="Copied onto every file: the header's value, else the first match of the pattern in the subject (its first group when it has one). Leave both blank for none.">
        <div className="grid grid-cols-3 gap-2">
          <input className={inputClass} value={given.field} title="Into field" placeholder="claim_id" data-testid={`${id}-id-field`}
            onChange={(e) => setId({ field: e.target.value })} />
          <input className={inputClass} value={given.header ?? ''} title="Header" placeholder="X-Claim-Id" data-testid={`${id}-id-header`}
            onChange={(e) => setId({ header: optional(e.target.value) })} />
          <input className={`${inputClass} font-mono`} value={given.pattern ?? ''} title="Pattern" placeholder="\b(CLM-\d+)\b" data-testid={`${id}-id-pattern`}
            onChange={(e) => setId({ pattern: optional(e.target.value) })} />
        </div>
      </Field>
      <p className="text-xs text-slate-500">One message per attachment, joined again by a combine downstream; an email without a From header fails with input_rejected.</p>
    </div>
  );
}
