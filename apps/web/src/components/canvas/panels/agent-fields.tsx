'use client';
/**
 * An agent's settings, for an agent member and for an agent step of a workflow alike: model,
 * instructions, provider (base URL and API-key variable), temperature, output schema (JSON edited
 * as text, parse errors shown in place) and granted MCP tools.
 */
import { useState } from 'react';
import type { AgentMember } from '@trellis/mesh/schema';
import { jsonSchemaProblems } from '@trellis/mesh/member-config';
import { inputClass } from '@/components/ui/button';
import { Field, optional, withKey } from './field';

/** The fields an agent member and an agent step share. */
export type AgentSettingsValue = Pick<AgentMember, 'model' | 'instructions' | 'provider' | 'temperature' | 'outputSchema' | 'tools'>;

export function AgentFields({ member, onChange }: { member: AgentMember; onChange: (m: AgentMember) => void }) {
  return <AgentSettings value={member} testId="member" onChange={(v) => onChange({ ...member, ...v })} />;
}

/** A comma-separated list as an array (undefined when empty). */
export function listOf(text: string): string[] | undefined {
  const items = text.split(',').map((s) => s.trim()).filter((s) => s !== '');
  return items.length === 0 ? undefined : items;
}

/**
 * Edits the shared agent fields of `value` (member or step); `onChange` receives the whole value
 * with optional keys removed when emptied. `testId` prefixes the data-testid of each control.
 */
export function AgentSettings<T extends AgentSettingsValue>({ value, testId, onChange }: { value: T; testId: string; onChange: (v: T) => void }) {
  const provider = value.provider;
  const setProvider = (baseUrl: string | undefined, apiKeySecret: string | undefined) =>
    onChange(withKey(value, 'provider', baseUrl === undefined && apiKeySecret === undefined ? undefined : ({ baseUrl: baseUrl ?? '', ...(apiKeySecret ? { apiKeySecret } : {}) })));
  return (
    <>
      <Field label="Model" hint="The model's name at the provider, or “demo” for the built-in deterministic demo (not a language model).">
        <input className={inputClass} value={value.model} data-testid={`${testId}-model`}
          onChange={(e) => onChange({ ...value, model: e.target.value })} />
      </Field>
      <Field label="Instructions" hint="What the agent should do with each message.">
        <textarea className={`${inputClass} min-h-28`} value={value.instructions ?? ''} data-testid={`${testId}-instructions`}
          onChange={(e) => onChange({ ...value, instructions: e.target.value })} />
      </Field>
      <Field label="Provider base URL" hint="Any OpenAI-compatible endpoint, e.g. https://api.openai.com/v1. Not needed for the demo model.">
        <input className={inputClass} value={provider?.baseUrl ?? ''} placeholder="https://…/v1" data-testid={`${testId}-provider-url`}
          onChange={(e) => setProvider(optional(e.target.value), provider?.apiKeySecret)} />
      </Field>
      <Field label="API key secret" hint="The name of a secret in the secrets store (admins manage them under Secrets); it is sent only to the hosts the secret lists, and never stored in the mesh.">
        <input className={`${inputClass} font-mono`} value={provider?.apiKeySecret ?? ''} placeholder="OPENAI_API_KEY" data-testid={`${testId}-provider-key`}
          onChange={(e) => setProvider(provider?.baseUrl, optional(e.target.value))} />
      </Field>
      <Field label="Temperature" hint="0 is most predictable, 2 most varied. Leave empty for the model's default.">
        <input type="number" min={0} max={2} step={0.1} className={inputClass} data-testid={`${testId}-temperature`}
          value={value.temperature ?? ''}
          onChange={(e) => {
            const n = e.target.valueAsNumber;
            onChange(withKey(value, 'temperature', Number.isNaN(n) ? undefined : (n as T['temperature'])));
          }} />
      </Field>
      <Field label="Tools" hint="Names of the MCP tool servers this agent may use, comma-separated.">
        <input className={inputClass} value={(value.tools ?? []).join(', ')} data-testid={`${testId}-tools`}
          onChange={(e) => onChange(withKey(value, 'tools', listOf(e.target.value) as T['tools']))} />
      </Field>
      <OutputSchemaField schema={value.outputSchema} testId={testId}
        onChange={(s) => onChange(withKey(value, 'outputSchema', s as T['outputSchema']))} />
    </>
  );
}

/**
 * The output schema as JSON text. Text that does not parse stays in the box with the parse error
 * below and is not applied; parsed text that is not a usable JSON Schema is applied (the
 * validator then reports it too) with its problems shown.
 */
function OutputSchemaField({ schema, testId, onChange }: { schema: Record<string, unknown> | undefined; testId: string; onChange: (s: Record<string, unknown> | undefined) => void }) {
  const pretty = (s: Record<string, unknown> | undefined) => (s === undefined ? '' : JSON.stringify(s, null, 2));
  const check = (s: Record<string, unknown> | undefined) => (s === undefined ? null : jsonSchemaProblems(s)[0] ?? null);
  const [text, setText] = useState(() => pretty(schema));
  const [problem, setProblem] = useState<string | null>(() => check(schema));
  // The schema last applied from this box; a different one coming in (another member, an import)
  // replaces the text, while the schema this box just applied leaves the person's typing alone.
  const [applied, setApplied] = useState(() => JSON.stringify(schema ?? null));
  const incoming = JSON.stringify(schema ?? null);
  if (incoming !== applied) {
    setApplied(incoming);
    setText(pretty(schema));
    setProblem(check(schema));
  }
  const edit = (next: string) => {
    setText(next);
    if (next.trim() === '') {
      setProblem(null);
      setApplied('null');
      onChange(undefined);
      return;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(next);
    } catch (err) {
      setProblem(`not JSON: ${err instanceof Error ? err.message : String(err)}`);
      return;
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      setProblem('a JSON Schema is an object, such as {"type": "object", "properties": {…}}');
      return;
    }
    setProblem(check(parsed as Record<string, unknown>));
    setApplied(JSON.stringify(parsed));
    onChange(parsed as Record<string, unknown>);
  };
  return (
    <Field
      label="Output schema"
      hint={problem ? <span className="text-red-700" data-testid={`${testId}-schema-error`}>{problem}</span> : 'JSON Schema of the answer; the answer is checked against it before it is passed on. Leave empty for free text.'}
    >
      <textarea className={`${inputClass} min-h-32 font-mono text-xs`} value={text} spellCheck={false} data-testid={`${testId}-schema`}
        aria-invalid={problem !== null} onChange={(e) => edit(e.target.value)} />
    </Field>
  );
}
