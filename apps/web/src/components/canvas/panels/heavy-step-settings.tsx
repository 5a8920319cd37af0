'use client';
/** Settings of the heavy workflow steps, which run on the member's worker pool: code, SQL, HTTP, agent. */
import type { AgentStep, CodeStep, HttpStep, SqlStep } from '@trellis/mesh/schema';
import { buttonClass, inputClass } from '@/components/ui/button';
import { AgentSettings, listOf } from './agent-fields';
import { Field, optional, withKey } from './field';
import { IntoField, ListField, NumberBox, TimeLimitField } from './step-inputs';

export function CodeSettings({ step, id, onChange }: { step: CodeStep; id: string; onChange: (s: CodeStep) => void }) {
  return (
    <div className="space-y-2 pl-6">
      <Field label="JavaScript" hint="The body of an async function of payload; what it returns becomes the payload. No Node APIs, environment, network or files unless granted below.">
        <textarea className={`${inputClass} min-h-32 font-mono text-xs`} spellCheck={false} value={step.source} data-testid={`${id}-source`}
          onChange={(e) => onChange({ ...step, source: e.target.value })} />
      </Field>
      <div className="grid grid-cols-2 gap-2">
        <TimeLimitField step={step} id={id} onChange={onChange} />
        <Field label="Memory limit (MB)">
          <NumberBox value={step.memoryMb} min={8} max={1024} testId={`${id}-memory`} onChange={(n) => onChange({ ...step, memoryMb: n })} />
        </Field>
      </div>
      <Field label="Network: allowed hosts" hint="Comma-separated; the code gets fetch() for these hosts only, under the install's egress policy. Empty: no network.">
        <input className={inputClass} value={(step.network ?? []).join(', ')} data-testid={`${id}-network`}
          onChange={(e) => onChange(withKey(step, 'network', listOf(e.target.value)))} />
      </Field>
      <label className="flex items-start gap-2 text-sm">
        <input type="checkbox" className="mt-0.5" checked={step.scratchDir ?? false} data-testid={`${id}-scratch-dir`}
          onChange={(e) => onChange(withKey(step, 'scratchDir', e.target.checked ? true : undefined))} />
        <span>
          <span className="font-medium text-slate-700">Scratch directory</span>
          <span className="block text-xs text-slate-500">On: writeFile(name, text) writes into a fresh directory of this step&apos;s own, removed afterwards.</span>
        </span>
      </label>
    </div>
  );
}

export function SqlSettings({ step, id, onChange }: { step: SqlStep; id: string; onChange: (s: SqlStep) => void }) {
  return (
    <div className="space-y-2 pl-6">
      <Field label="Connection" hint="trellis for Trellis's own database (schema mesh_data, as a restricted role), or the name of a connection an admin stored (the URL is never in the mesh).">
        <input className={`${inputClass} font-mono`} value={step.connection} data-testid={`${id}-connection`}
          onChange={(e) => onChange({ ...step, connection: e.target.value.trim() })} />
      </Field>
      <Field label="Query" hint="Use $1, $2, … for values; they are bound from the fields below, never pasted into the text.">
        <textarea className={`${inputClass} min-h-24 font-mono text-xs`} spellCheck={false} value={step.query} data-testid={`${id}-query`}
          onChange={(e) => onChange({ ...step, query: e.target.value })} />
      </Field>
      <ListField label="Parameters" hint="Payload fields for $1, $2, … in order, comma-separated." value={step.params} testId={`${id}-params`}
        onChange={(params) => onChange({ ...step, params })} />
      <div className="grid grid-cols-2 gap-2">
        <IntoField label="Rows into field" step={step} id={id} onChange={onChange} />
        <TimeLimitField step={step} id={id} onChange={onChange} />
      </div>
      <label className="flex items-start gap-2 text-sm">
        <input type="checkbox" className="mt-0.5" checked={step.write} data-testid={`${id}-write`} onChange={(e) => onChange({ ...step, write: e.target.checked })} />
        <span>
          <span className="font-medium text-slate-700">May write</span>
          <span className="block text-xs text-slate-500">Off: the query runs in a read-only transaction and any write is refused.</span>
        </span>
      </label>
    </div>
  );
}

export function HttpSettings({ step, id, onChange }: { step: HttpStep; id: string; onChange: (s: HttpStep) => void }) {
  const headers: [string, string][] = Object.entries(step.headers ?? {}).map(([name, ref]) => [name, ref.secret]);
  const setHeaders = (rows: [string, string][]) =>
    onChange(withKey(step, 'headers', rows.length === 0 ? undefined : Object.fromEntries(rows.map(([name, secret]) => [name, { secret }]))));
  const hasBody = step.method !== 'GET' && step.method !== 'DELETE';
  return (
    <div className="space-y-2 pl-6">
      <div className="grid grid-cols-[auto_1fr] gap-2">
        <select className={inputClass} value={step.method} data-testid={`${id}-method`}
          onChange={(e) => {
            const method = e.target.value as HttpStep['method'];
            const next = { ...step, method };
            onChange(method === 'GET' || method === 'DELETE' ? withKey(next, 'body', undefined) : next);
          }}>
          {(['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const).map((m) => <option key={m} value={m}>{m}</option>)}
        </select>
        <input className={`${inputClass} font-mono text-xs`} value={step.url} placeholder="https://host/path/{field}" data-testid={`${id}-url`}
          onChange={(e) => onChange({ ...step, url: e.target.value })} />
      </div>
      <ListField label="Allowed hosts" hint="Comma-separated; a request to any other host is refused. Placeholders like {claim.id} are URL-encoded and only allowed after the host."
        value={step.allowHosts} testId={`${id}-hosts`} onChange={(allowHosts) => onChange({ ...step, allowHosts })} />
      <div className="space-y-1 text-sm">
        <span className="block font-medium text-slate-700">Headers from secrets</span>
        {headers.map(([name, secret], r) => (
          <div key={r} className="grid grid-cols-[1fr_auto_1fr_auto] items-center gap-1">
            <input className={inputClass} value={name} aria-label="Header name" onChange={(e) => setHeaders(headers.map((x, k) => (k === r ? [e.target.value, x[1]] : x)))} />
            <span className="text-slate-400">←</span>
            <input className={`${inputClass} font-mono`} value={secret} aria-label="Secret name" onChange={(e) => setHeaders(headers.map((x, k) => (k === r ? [x[0], e.target.value] : x)))} />
            <button type="button" className={buttonClass.ghost} onClick={() => setHeaders(headers.filter((_, k) => k !== r))} aria-label="Remove header">×</button>
          </div>
        ))}
        <button type="button" className={buttonClass.ghost} data-testid={`${id}-header-add`} onClick={() => setHeaders([...headers, ['Authorization', 'API_TOKEN']])}>+ header</button>
        <span className="block text-xs text-slate-500">Each value is the named secret of the secrets store, sent only to the hosts that secret lists.</span>
      </div>
      <div className="grid grid-cols-3 gap-2">
        {hasBody && (
          <Field label="Body field" hint="Empty: the whole payload.">
            <input className={inputClass} value={step.body ?? ''} data-testid={`${id}-body`} onChange={(e) => onChange(withKey(step, 'body', optional(e.target.value)))} />
          </Field>
        )}
        <IntoField label="Answer into field" step={step} id={id} onChange={onChange} />
        <TimeLimitField step={step} id={id} onChange={onChange} />
      </div>
    </div>
  );
}

export function AgentStepSettings({ step, id, onChange }: { step: AgentStep; id: string; onChange: (s: AgentStep) => void }) {
  return (
    <div className="space-y-2 pl-6">
      <AgentSettings value={step} testId={id} onChange={onChange} />
      <Field label="Answer">
        <select className={inputClass} value={step.output} data-testid={`${id}-output`} onChange={(e) => onChange({ ...step, output: e.target.value as AgentStep['output'] })}>
          <option value="replace">replaces the payload</option>
          <option value="merge">is merged into the payload</option>
        </select>
      </Field>
    </div>
  );
}
