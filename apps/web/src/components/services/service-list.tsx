'use client';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState, type FormEvent } from 'react';
import { AdminTable } from '@/components/ui/admin-table';
import { buttonClass, inputClass } from '@/components/ui/button';
import { formatDateTime } from '@/components/ui/format';
import { errorMessage } from '@/trpc/errors';
import { useTRPC } from '@/trpc/client';
import { useCan } from '@/components/ui/access';

/**
 * The registered outside services (name, key prefix, who added it, when) and a form to register
 * one. The new API key is shown once, with the command that runs the records-check example
 * against this server; only its prefix is kept for the list.
 */
export function ServiceList() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const services = useQuery(trpc.services.list.queryOptions());
  const add = useMutation(trpc.services.add.mutationOptions());
  const canAdd = useCan('admin');
  const [problem, setProblem] = useState<string | null>(null);
  const [added, setAdded] = useState<{ name: string; apiKey: string } | null>(null);

  async function onSubmit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = e.currentTarget;
    const value = new FormData(form).get('name');
    const name = typeof value === 'string' ? value.trim() : '';
    setProblem(null);
    setAdded(null);
    try {
      setAdded(await add.mutateAsync({ name }));
      form.reset();
      await queryClient.invalidateQueries({ queryKey: trpc.services.list.queryKey() });
    } catch (err) {
      setProblem(errorMessage(err));
    }
  }

  return (
    <section data-testid="service-list">
      <div className="mb-6">
        <h1 className="text-2xl font-semibold tracking-tight">Services</h1>
        <p className="text-sm text-slate-600">
          Outside services answer a mesh&apos;s <code>service</code> members: they claim parked jobs over the REST API
          (<a className="text-sky-700 underline" href="/api/v1/openapi.json">/api/v1/openapi.json</a>) with their API key.
        </p>
      </div>
      {canAdd && (
        <form onSubmit={(e) => void onSubmit(e)} className="mb-6 flex flex-wrap items-end gap-2 rounded-lg border border-slate-200 bg-white p-3" data-testid="service-add-form">
          <label className="block text-sm font-medium">
            Service name
            <input name="name" required pattern="[A-Za-z0-9][A-Za-z0-9_\-]{0,62}" className={`mt-1 w-72 ${inputClass}`}
              placeholder="records-check" data-testid="service-add-name" title="1–63 letters, digits, “-” or “_”; the name a service member uses" />
          </label>
          <button type="submit" className={buttonClass.primary} disabled={add.isPending} data-testid="service-add">
            Register service
          </button>
          {problem && <p role="alert" className="w-full text-sm text-red-700" data-testid="service-add-error">{problem}</p>}
        </form>
      )}
      {added && <NewKey name={added.name} apiKey={added.apiKey} onDone={() => setAdded(null)} />}
      <AdminTable
        query={services}
        testId="service-list"
        loading="Loading services…"
        empty="No services registered yet."
        rowKey={(s) => s.name}
        rowTestId={(s) => `service-row-${s.name}`}
        columns={[
          { header: 'Name', className: 'font-medium', cell: (s) => s.name },
          { header: 'Key starts with', className: 'font-mono text-xs text-slate-600', cell: (s) => <span data-testid={`service-prefix-${s.name}`}>{s.keyPrefix}…</span> },
          { header: 'Added', className: 'text-slate-600', cell: (s) => formatDateTime(s.createdAt) },
        ]}
      />
    </section>
  );
}

/** The key of a service just registered, shown this once, and the command that runs the example with it. */
function NewKey({ name, apiKey, onDone }: { name: string; apiKey: string; onDone: () => void }) {
  const [origin, setOrigin] = useState('http://localhost:3000');
  useEffect(() => setOrigin(window.location.origin), []);
  const command = `TRELLIS_URL=${origin} TRELLIS_SERVICE_KEY=${apiKey}${name === 'records-check' ? '' : ` TRELLIS_SERVICE=${name}`} npm run example:records-check`;
  return (
    <div role="status" className="mb-6 rounded-lg border border-amber-300 bg-amber-50 p-4 text-sm" data-testid="service-new-key">
      <p className="font-medium text-amber-900">Service “{name}” is registered. Copy its API key now: it is shown only this once.</p>
      <CopyLine label="API key" text={apiKey} testId="service-key" />
      <p className="mt-3 text-slate-700">Run the example service against this server from the repository:</p>
      <CopyLine label="Command" text={command} testId="service-command" />
      <button type="button" className={`mt-3 ${buttonClass.secondary}`} onClick={onDone} data-testid="service-key-done">
        I have copied the key
      </button>
    </div>
  );
}

function CopyLine({ label, text, testId }: { label: string; text: string; testId: string }) {
  const [copied, setCopied] = useState(false);
  async function copy() {
    try {
      await navigator.clipboard.writeText(text);
      setCopied(true);
    } catch {
      setCopied(false);
    }
  }
  return (
    <div className="mt-2 flex items-center gap-2">
      <span className="w-20 shrink-0 text-xs uppercase tracking-wide text-slate-500">{label}</span>
      <code className="flex-1 select-all break-all rounded bg-white px-2 py-1 font-mono text-xs text-slate-900" data-testid={testId}>{text}</code>
      <button type="button" className={buttonClass.ghost} onClick={() => void copy()} title="Copy to the clipboard (or select the text and press Ctrl-C)">
        {copied ? 'Copied' : 'Copy'}
      </button>
    </div>
  );
}
