'use client';
/** Upload a document and start a run of the saved mesh; on success, go to the run's page. */
import { useRouter } from 'next/navigation';
import { useRef, useState } from 'react';
import type { Finding } from '@trellis/mesh/findings';
import { buttonClass } from '@/components/ui/button';

export interface RunRefusal {
  message: string;
  findings: Finding[];
}

export function RunStarter({ meshId, version, dirty, onRefused }: { meshId: string; version: number; dirty: boolean; onRefused: (r: RunRefusal | null) => void }) {
  const router = useRouter();
  const input = useRef<HTMLInputElement>(null);
  const [file, setFile] = useState<File | null>(null);
  const [busy, setBusy] = useState(false);

  async function start() {
    if (!file) return;
    setBusy(true);
    onRefused(null);
    try {
      const res = await fetch(`/api/v1/meshes/${encodeURIComponent(meshId)}/runs?version=${version}`, {
        method: 'POST',
        headers: { 'content-type': 'application/octet-stream', 'x-file-name': encodeURIComponent(file.name) },
        body: file,
      });
      const body = (await res.json().catch(() => ({}))) as { runId?: string; error?: { message?: string; findings?: Finding[] } };
      if (res.ok && body.runId) return router.push(`/runs/${body.runId}`);
      if (res.status === 401) return window.location.assign(`/signin?callbackUrl=${encodeURIComponent(window.location.pathname)}`);
      onRefused({ message: body.error?.message ?? `the run could not start (HTTP ${res.status})`, findings: body.error?.findings ?? [] });
    } catch {
      onRefused({ message: 'the server could not be reached', findings: [] });
    }
    setBusy(false);
  }

  return (
    <div className="flex items-center gap-2" data-testid="run-panel">
      <input ref={input} type="file" className="hidden" data-testid="run-upload" onChange={(e) => setFile(e.target.files?.[0] ?? null)} />
      <button type="button" className={buttonClass.secondary} onClick={() => input.current?.click()} title="The document the head member receives">
        {file ? <span className="max-w-32 truncate" data-testid="run-file">{file.name}</span> : 'Choose document…'}
      </button>
      <button type="button" className={buttonClass.primary} disabled={!file || busy} onClick={() => void start()} data-testid="run-start"
        title={dirty ? `Runs use the saved version v${version}; your unsaved changes are not included` : `Run version v${version}`}>
        {busy ? 'Starting…' : `Run v${version}`}
      </button>
    </div>
  );
}
