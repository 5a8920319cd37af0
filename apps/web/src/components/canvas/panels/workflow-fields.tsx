'use client';
/**
 * A workflow's steps: add, remove, reorder, and each step's settings: built-ins (split, map, pass,
 * email) and the heavy steps that run on the member's worker pool (code, SQL, HTTP, agent).
 */
import type { Step, WorkflowMember } from '@trellis/mesh/schema';
import { buttonClass, inputClass } from '@/components/ui/button';
import { EmailSettings } from './email-fields';
import { AgentStepSettings, CodeSettings, HttpSettings, SqlSettings } from './heavy-step-settings';
import { MapSettings } from './step-inputs';

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
            <select className={`${inputClass} flex-1`} value={step.type} data-testid={`step-${i}-type`} aria-label={`Step ${i + 1}: type`}
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
