'use client';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { buttonClass, inputClass } from '@/components/ui/button';
import { formatDateTime } from '@/components/ui/format';
import { errorMessage } from '@/trpc/errors';
import { useTRPC } from '@/trpc/client';

/**
 * The secrets store for admins: each secret's name, the hosts it may be sent to and who changed it
 * last, a form to store (or replace) one and a remove button. A value goes in once and never comes
 * back out: the server answers names and hosts only. Non-admins see the server's refusal.
 */
export function SecretList() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const secrets = useQuery(trpc.secrets.list.queryOptions({ kind: 'secret' }));
  const set = useMutation(trpc.secrets.set.mutationOptions());
  const remove = useMutation(trpc.secrets.remove.mutationOptions());
  const [problem, setProblem] = useState<string | null>(null);
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.secrets.list.queryKey({ kind: 'secret' }) });

  async function onSubmit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = e.currentTarget;
    const data = new FormData(form);
    const text = (k: string) => {
      const v = data.get(k);
      return typeof v === 'string' ? v : '';
    };
    setProblem(null);
    try {
      await set.mutateAsync({ kind: 'secret', name: text('name').trim(), value: text('value'), hosts: text('hosts').split(',').map((h) => h.trim()).filter(Boolean) });
      form.reset();
      await refresh();
    } catch (err) {
      setProblem(errorMessage(err));
    }
  }

  return (
    <section data-testid="secret-list">
      <div className="mb-6">
        <h1 className="text-2xl font-semibold tracking-tight">Secrets</h1>
        <p className="text-sm text-slate-600">
          Steps reference a secret by name (<code>{'{"secret": "NAME"}'}</code> in HTTP headers, <code>provider.apiKeySecret</code> for agents);
          it is sent only to the hosts listed here, and its value is never shown again.
        </p>
      </div>
      <form onSubmit={(e) => void onSubmit(e)} className="mb-6 grid grid-cols-[1fr_1fr_1fr_auto] items-end gap-2 rounded-lg border border-slate-200 bg-white p-3" data-testid="secret-set-form">
        <label className="block text-sm font-medium">
          Name
          <input name="name" required pattern="[A-Za-z_][A-Za-z0-9_]{0,127}" className={`mt-1 ${inputClass}`} placeholder="CRM_TOKEN" data-testid="secret-set-name" />
        </label>
        <label className="block text-sm font-medium">
          Value
          <input name="value" type="password" required autoComplete="off" className={`mt-1 ${inputClass}`} data-testid="secret-set-value" />
        </label>
        <label className="block text-sm font-medium">
          Hosts it may go to
          <input name="hosts" required className={`mt-1 ${inputClass}`} placeholder="api.crm.example, *.crm.example" data-testid="secret-set-hosts" />
        </label>
        <button type="submit" className={buttonClass.primary} disabled={set.isPending} data-testid="secret-set">Store secret</button>
        {problem && <p role="alert" className="col-span-4 text-sm text-red-700" data-testid="secret-set-error">{problem}</p>}
      </form>
      {secrets.isError && <p role="alert" className="rounded-md bg-red-50 px-3 py-2 text-sm text-red-700" data-testid="secret-list-error">{errorMessage(secrets.error)}</p>}
      {secrets.data?.length === 0 && <p className="text-sm text-slate-500" data-testid="secret-list-empty">No secrets stored yet.</p>}
      {secrets.data && secrets.data.length > 0 && (
        <div className="overflow-hidden rounded-lg border border-slate-200 bg-white">
          <table className="w-full text-left text-sm">
            <thead className="border-b border-slate-200 bg-slate-50 text-xs uppercase tracking-wide text-slate-500">
              <tr>
                <th className="px-4 py-2 font-medium">Name</th>
                <th className="px-4 py-2 font-medium">Hosts</th>
                <th className="px-4 py-2 font-medium">Updated</th>
                <th className="px-4 py-2" />
              </tr>
            </thead>
            <tbody>
              {secrets.data.map((s) => (
                <tr key={s.name} className="border-b border-slate-100 last:border-0" data-testid={`secret-row-${s.name}`}>
                  <td className="px-4 py-2.5 font-mono text-xs font-medium">{s.name}</td>
                  <td className="px-4 py-2.5 text-slate-600">{s.hosts.join(', ')}</td>
                  <td className="px-4 py-2.5 text-slate-600">{formatDateTime(s.updatedAt)} by {s.updatedBy}</td>
                  <td className="px-4 py-2.5 text-right">
                    <button type="button" className={buttonClass.ghost} data-testid={`secret-remove-${s.name}`}
                      onClick={() => void remove.mutateAsync({ kind: 'secret', name: s.name }).then(refresh, (err: unknown) => setProblem(errorMessage(err)))}>
                      Remove
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
