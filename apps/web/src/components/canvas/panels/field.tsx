import type { ReactNode } from 'react';

/** A labelled form row with an optional hint below. */
export function Field({ label, hint, children }: { label: string; hint?: ReactNode; children: ReactNode }) {
  return (
    <label className="block text-sm">
      <span className="mb-1 block font-medium text-slate-700">{label}</span>
      {children}
      {hint && <span className="mt-1 block text-xs text-slate-500">{hint}</span>}
    </label>
  );
}

/** `undefined` for an empty box, so optional fields disappear from the file instead of saving "". */
export function optional(value: string): string | undefined {
  return value.trim() === '' ? undefined : value;
}

/** `value` with `key` set to `next`, or without `key` when `next` is undefined (so the file drops it). */
export function withKey<T extends object, K extends keyof T>(value: T, key: K, next: T[K] | undefined): T {
  const copy = { ...value };
  if (next === undefined) delete copy[key];
  else copy[key] = next;
  return copy;
}
