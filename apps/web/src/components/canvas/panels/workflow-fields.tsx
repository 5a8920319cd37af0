'use client';
/** A workflow's steps: add, remove, reorder, and each step's settings (split, map, pass). */
import type { Step, WorkflowMember } from '@trellis/mesh/schema';
import { buttonClass, inputClass } from '@/components/ui/button';

const BLANK: Record<Step['type'], Step> = {
  split: { type: 'split', by: 'line', field: 'text' },
  map: { type: 'map', fields: { text: 'text' } },
  pass: { type: 'pass' },
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
              <option value="split">Split text</option>
              <option value="map">Map fields</option>
              <option value="pass">Pass on unchanged</option>
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
    </div>
  );
}

function StepSettings({ step, index, onChange }: { step: Step; index: number; onChange: (s: Step) => void }) {
  if (step.type === 'pass') return null;
  if (step.type === 'split') {
    return (
      <div className="flex gap-2 pl-6 text-sm">
        <select className={inputClass} value={step.by} data-testid={`step-${index}-by`} onChange={(e) => onChange({ ...step, by: e.target.value as typeof step.by })}>
          <option value="page">by page (form feed)</option>
          <option value="line">by line</option>
          <option value="word">by word</option>
        </select>
        <input className={inputClass} value={step.field} title="Text field to split" data-testid={`step-${index}-field`} onChange={(e) => onChange({ ...step, field: e.target.value })} />
      </div>
    );
  }
  const rows = Object.entries(step.fields);
  const setRows = (next: [string, string][]) => onChange({ ...step, fields: Object.fromEntries(next) });
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
