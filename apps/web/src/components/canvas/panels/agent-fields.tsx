'use client';
import type { AgentMember } from '@trellis/mesh/schema';
import { inputClass } from '@/components/ui/button';
import { Field } from './field';

export function AgentFields({ member, onChange }: { member: AgentMember; onChange: (m: AgentMember) => void }) {
  return (
    <>
      <Field label="Model" hint="The model's name at the provider, or “demo” for the built-in deterministic demo.">
        <input className={inputClass} value={member.model} data-testid="member-model"
          onChange={(e) => onChange({ ...member, model: e.target.value })} />
      </Field>
      <Field label="Instructions" hint="What the agent should do with each message.">
        <textarea className={`${inputClass} min-h-28`} value={member.instructions} data-testid="member-instructions"
          onChange={(e) => onChange({ ...member, instructions: e.target.value })} />
      </Field>
      <Field label="Temperature" hint="0 is most predictable, 2 most varied. Leave empty for the model's default.">
        <input type="number" min={0} max={2} step={0.1} className={inputClass} data-testid="member-temperature"
          value={member.temperature ?? ''}
          onChange={(e) => {
            const { temperature: _t, ...rest } = member;
            const n = e.target.valueAsNumber;
            onChange(Number.isNaN(n) ? rest : { ...rest, temperature: n });
          }} />
      </Field>
    </>
  );
}
