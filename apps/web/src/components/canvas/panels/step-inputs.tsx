'use client';
/** Small inputs the workflow step settings share: numbers, time limits, result fields, lists, field maps. */
import { buttonClass, inputClass } from '@/components/ui/button';
import { listOf } from './agent-fields';
import { Field } from './field';

/** Edits a map of new field ← source field. */
export function MapSettings({ fields, onChange }: { fields: Record<string, string>; onChange: (f: Record<string, string>) => void }) {
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
export function NumberBox({ value, min, max, testId, onChange }: { value: number; min: number; max: number; testId: string; onChange: (n: number) => void }) {
  return (
    <input type="number" className={inputClass} min={min} max={max} step={1} value={value} data-testid={testId}
      onChange={(e) => {
        const n = e.target.valueAsNumber;
        if (Number.isInteger(n)) onChange(n);
      }} />
  );
}

/** A step's time limit field (10 ms to 10 min, the mesh schema's bounds). */
export function TimeLimitField<S extends { timeoutMs: number }>({ step, id, onChange }: { step: S; id: string; onChange: (s: S) => void }) {
  return (
    <Field label="Time limit (ms)">
      <NumberBox value={step.timeoutMs} min={10} max={600_000} testId={`${id}-timeout`} onChange={(n) => onChange({ ...step, timeoutMs: n })} />
    </Field>
  );
}

/** The payload field a step writes its result into. */
export function IntoField<S extends { into: string }>({ label, step, id, onChange }: { label: string; step: S; id: string; onChange: (s: S) => void }) {
  return (
    <Field label={label}>
      <input className={inputClass} value={step.into} data-testid={`${id}-into`} onChange={(e) => onChange({ ...step, into: e.target.value })} />
    </Field>
  );
}

/** A list of names edited as comma-separated text; empty text is the empty list. */
export function ListField({ label, hint, value, testId, onChange }: { label: string; hint: string; value: readonly string[]; testId: string; onChange: (list: string[]) => void }) {
  return (
    <Field label={label} hint={hint}>
      <input className={inputClass} value={value.join(', ')} data-testid={testId} onChange={(e) => onChange(listOf(e.target.value) ?? [])} />
    </Field>
  );
}

