/** Button looks, shared so every page speaks the same visual language. */
const base = 'inline-flex items-center gap-1.5 rounded-md px-3 py-1.5 text-sm font-medium disabled:cursor-not-allowed disabled:opacity-50';

export const buttonClass = {
  primary: `${base} bg-slate-900 text-white hover:bg-slate-700`,
  secondary: `${base} border border-slate-300 bg-white text-slate-800 hover:bg-slate-50`,
  danger: `${base} border border-red-200 bg-white text-red-700 hover:bg-red-50`,
  ghost: `${base} text-slate-600 hover:bg-slate-100`,
} as const;

export const inputClass =
  'block w-full rounded-md border border-slate-300 bg-white px-2.5 py-1.5 text-sm focus:border-sky-500 focus:outline-none';
