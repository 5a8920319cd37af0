'use client';
/**
 * A workflow's steps: add, remove, reorder, and each step's settings: built-ins (split, map, pass,
 * email) and the heavy steps that run on the member's worker pool (code, SQL, HTTP, agent).
 */
import type { AgentStep, CodeStep, HttpStep, SqlStep, Step, WorkflowMember } from '@trellis/mesh/schema';
import { buttonClass, inputClass } from '@/components/ui/button';
import { AgentSettings, listOf } from './agent-fields';
import { EmailSettings } from './email-fields';
import { Field, optional } from './field';

const BLANK: Record<Step['type'], Step> = {
  split: { type: 'split', by: 'line', field: 'text' },
  map: { type: 'map', fields: { text: 'text' } },
  pass: { type: 'pass' },
  email: { type: 'email', field: 'text', base64Field: 'base64' },
  code: { type: 'code', source: 'return { ...payload };', timeoutMs: 5_000, memoryMb: 64 },
  sql: { type: 'sql', connection: 'trellis', query: 'select 1 as one', params: [], write: false, into: 'rows', timeoutMs: 30_000 },
  http: { type: 'http', method: 'GET', url: 'https://api.example.com/items/{id}', allowHosts: ['api.example.com'], timeoutMs: 10_000, into: 'response' },
  agent: { type: 'agent', model: 'demo', instructions: '', output: 'replace' },
};

const LABELS: Record<Step['type'], string> = {
  split: 'Split text',
  map: 'Map fields',
  pass: 'Pass on unchanged',
  email: 'Unpack an email',
  code: 'Run JavaScript (sandboxed)',
  sql: 'SQL query',
  http: 'HTTP request',
  agent: 'Ask an agent',
};

export function WorkflowFields({ member, onChange }: { member: WorkflowMember; onChange: (m: WorkflowMember) => void }) {
  const steps = member.steps;
  const set = (next: Step[]) => onChange({ ...member, steps: next });
  const move = (i: number, by: -1 | 1) => {
    const next = [...steps];
    const [s] = next.splice(i, 1);
    if (s) next.splice(i + by, 0, s);
    set(next);
  };
  return (
    <div className="space-y-2" data-testid="member-steps">
      <span className="block text-sm font-medium text-slate-700">Steps, in order</span>
      {steps.map((step, i) => (
        <div key={i} className="space-y-2 rounded-md border border-slate-200 bg-slate-50 p-2" data-testid={`step-${i}`}>
          <div className="flex items-center gap-1">
            <span className="w-5 text-xs text-slate-500">{i + 1}.</span>
            <select className={`${inputClass} flex-1`} value={step.type} data-testid={`step-${i}-type`}
              onChange={(e) => set(steps.map((s, j) => (j === i ? BLANK[e.target.value as Step['type']] : s)))}>
              {(Object.keys(LABELS) as Step['type'][]).map((t) => <option key={t} value={t}>{LABELS[t]}</option>)}
            </select>
            <button type="button" className={buttonClass.ghost} disabled={i === 0} onClick={() => move(i, -1)} aria-label="Move up">↑</button>
            <button type="button" className={buttonClass.ghost} disabled={i === steps.length - 1} onClick={() => move(i, 1)} aria-label="Move down">↓</button>
            <button type="button" className={buttonClass.ghost} onClick={() => set(steps.filter((_, j) => j !== i))} aria-label="Remove step" data-testid={`step-${i}-remove`}>×</button>
          </div>
          <StepSettings step={step} index={i} onChange={(s) => set(steps.map((x, j) => (j === i ? s : x)))} />
        </div>
      ))}
      <button type="button" className={buttonClass.secondary} onClick={() => set([...steps, BLANK.pass])} data-testid="step-add">
        Add step
      </button>
      {steps.some((s) => s.type === 'code' || s.type === 'sql' || s.type === 'http' || s.type === 'agent') && (
        <p className="text-xs text-slate-500">
          Code, SQL, HTTP and agent steps run on this member's worker pool, outside the orchestrator.
        </p>
      )}
    </div>
  );
}

function StepSettings({ step, index, onChange }: { step: Step; index: number; onChange: (s: Step) => void }) {
  const id = `step-${index}`;
  switch (step.type) {
    case 'pass':
      return null;
    case 'email':
      return <EmailSettings step={step} id={id} onChange={onChange} />;
    case 'split':
      return (
        <div className="flex gap-2 pl-6 text-sm">
          <select className={inputClass} value={step.by} data-testid={`${id}-by`} onChange={(e) => onChange({ ...step, by: e.target.value as typeof step.by })}>
            <option value="page">by page (form feed)</option>
            <option value="line">by line</option>
            <option value="word">by word</option>
          </select>
          <input className={inputClass} value={step.field} title="Text field to split" data-testid={`${id}-field`} onChange={(e) => onChange({ ...step, field: e.target.value })} />
        </div>
      );
    case 'map':
      return <MapSettings fields={step.fields} onChange={(fields) => onChange({ ...step, fields })} />;
    case 'code':
      return <CodeSettings step={step} id={id} onChange={onChange} />;
    case 'sql':
      return <SqlSettings step={step} id={id} onChange={onChange} />;
    case 'http':
      return <HttpSettings step={step} id={id} onChange={onChange} />;
    case 'agent':
      return <AgentStepSettings step={step} id={id} onChange={onChange} />;
  }
}

function MapSettings({ fields, onChange }: { fields: Record<string, string>; onChange: (f: Record<string, string>) => void }) {
  const rows = Object.entries(fields);
  const setRows = (next: [string, string][]) => onChange(Object.fromEntries(next));
  return (
    <div className="space-y-1 pl-6 text-sm">
      <div className="grid grid-cols-[1fr_auto_1fr_auto] items-center gap-1 text-xs text-slate-500">
        <span>new field</span><span /><span>from field</span><span />
      </div>
      {rows.map(([out, from], r) => (
        <div key={r} className="grid grid-cols-[1fr_auto_1fr_auto] items-center gap-1">
          <input className={inputClass} value={out} onChange={(e) => setRows(rows.map((x, k) => (k === r ? [e.target.value, x[1]] : x)))} />
          <span className="text-slate-400">←</span>
          <input className={inputClass} value={from} onChange={(e) => setRows(rows.map((x, k) => (k === r ? [x[0], e.target.value] : x)))} />
          <button type="button" className={buttonClass.ghost} onClick={() => setRows(rows.filter((_, k) => k !== r))} aria-label="Remove field">×</button>
        </div>
      ))}
      <button type="button" className={buttonClass.ghost} onClick={() => setRows([...rows, [`field${rows.length + 1}`, 'text']])}>+ field</button>
    </div>
  );
}

/** A whole number box; an empty or invalid entry keeps the last value. */
function NumberBox({ value, min, max, testId, onChange }: { value: number; min: number; max: number; testId: string; onChange: (n: number) => void }) {
  return (
    <input type="number" className={inputClass} min={min} max={max} step={1} value={value} data-testid={testId}
      onChange={(e) => {
        const n = e.target.valueAsNumber;
        if (Number.isInteger(n)) onChange(n);
      }} />
  );
}

/** A step's time limit field (10 ms to 10 min, the mesh schema's bounds). */
function TimeLimitField<S extends { timeoutMs: number }>({ step, id, onChange }: { step: S; id: string; onChange: (s: S) => void }) {
  return (
    <Field label="Time limit (ms)">
      <NumberBox value={step.timeoutMs} min={10} max={600_000} testId={`${id}-timeout`} onChange={(n) => onChange({ ...step, timeoutMs: n })} />
    </Field>
  );
}

/** The payload field a step writes its result into. */
function IntoField<S extends { into: string }>({ label, step, id, onChange }: { label: string; step: S; id: string; onChange: (s: S) => void }) {
  return (
    <Field label={label}>
      <input className={inputClass} value={step.into} data-testid={`${id}-into`} onChange={(e) => onChange({ ...step, into: e.target.value })} />
    </Field>
  );
}

/** A list of names edited as comma-separated text; empty text is the empty list. */
function ListField({ label, hint, value, testId, onChange }: { label: string; hint: string; value: readonly string[]; testId: string; onChange: (list: string[]) => void }) {
  return (
    <Field label={label} hint={hint}>
      <input className={inputClass} value={value.join(', ')} data-testid={testId} onChange={(e) => onChange(listOf(e.target.value) ?? [])} />
    </Field>
  );
}

/** Sets or removes one optional key of a step. */
function withKey<T extends Step, K extends keyof T>(step: T, key: K, next: T[K] | undefined): T {
  const copy = { ...step };
  if (next === undefined) delete copy[key];
  else copy[key] = next;
  return copy;
}

function CodeSettings({ step, id, onChange }: { step: CodeStep; id: string; onChange: (s: CodeStep) => void }) {
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
      <Field label="Network: allowed hosts" hint="Comma-separated; the code gets fetch() for these hosts only. Empty: no network.">
        <input className={inputClass} value={(step.network ?? []).join(', ')} data-testid={`${id}-network`}
          onChange={(e) => onChange(withKey(step, 'network', listOf(e.target.value)))} />
      </Field>
      <Field label="Writable directory" hint="Absolute path the code may write into with writeFile(name, text). Empty: no file writes.">
        <input className={`${inputClass} font-mono`} value={step.writeDir ?? ''} data-testid={`${id}-write-dir`}
          onChange={(e) => onChange(withKey(step, 'writeDir', optional(e.target.value)))} />
      </Field>
    </div>
  );
}

function SqlSettings({ step, id, onChange }: { step: SqlStep; id: string; onChange: (s: SqlStep) => void }) {
  return (
    <div className="space-y-2 pl-6">
      <Field label="Connection" hint="trellis for Trellis's own database, or the environment variable holding a database URL (the URL is never stored in the mesh).">
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

function HttpSettings({ step, id, onChange }: { step: HttpStep; id: string; onChange: (s: HttpStep) => void }) {
  const headers = Object.entries(step.headers ?? {});
  const setHeaders = (rows: [string, string][]) => onChange(withKey(step, 'headers', rows.length === 0 ? undefined : Object.fromEntries(rows)));
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
            <input className={`${inputClass} font-mono`} value={secret} aria-label="Secret variable" onChange={(e) => setHeaders(headers.map((x, k) => (k === r ? [x[0], e.target.value] : x)))} />
            <button type="button" className={buttonClass.ghost} onClick={() => setHeaders(headers.filter((_, k) => k !== r))} aria-label="Remove header">×</button>
          </div>
        ))}
        <button type="button" className={buttonClass.ghost} data-testid={`${id}-header-add`} onClick={() => setHeaders([...headers, ['Authorization', 'API_TOKEN']])}>+ header</button>
        <span className="block text-xs text-slate-500">Each value is read from the named environment variable when the step runs.</span>
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

function AgentStepSettings({ step, id, onChange }: { step: AgentStep; id: string; onChange: (s: AgentStep) => void }) {
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
