'use client';
/** A button that copies a full id (a run's) to the clipboard, and says so for a moment. */
import { useState } from 'react';

export function CopyId({ id, label = 'run id' }: { id: string; label?: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <button type="button" data-testid="copy-id" aria-label={`Copy ${label} ${id}`} title={`Copy the full ${label}: ${id}`}
      className="ml-1 rounded px-1 font-sans text-[11px] text-slate-500 hover:bg-slate-100 hover:text-slate-800"
      onClick={() => void navigator.clipboard.writeText(id).then(() => { setCopied(true); setTimeout(() => setCopied(false), 1500); })}>
      {copied ? 'copied' : 'copy'}
    </button>
  );
}
