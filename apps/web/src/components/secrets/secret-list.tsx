'use client';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { AdminTable } from '@/components/ui/admin-table';
import { buttonClass, inputClass } from '@/components/ui/button';
import { formatDateTime } from '@/components/ui/format';
import { formText } from '@/components/ui/form-text';
import { useFormAction } from '@/components/ui/use-form-action';
import { errorMessage } from '@/trpc/errors';
import { useTRPC } from '@/trpc/client';

/**
 * The secrets store for admins: each secret's name, the hosts (and tool servers) it may go to and who changed it
 * last, a form to store (or replace) one and a remove button. A value goes in once and never comes
 * back out: the server answers names and targets only. Admins only (the page and the procedures).
 */
export function SecretList() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const secrets = useQuery(trpc.secrets.list.queryOptions({ kind: 'secret' }));
  const set = useMutation(trpc.secrets.set.mutationOptions());
  const remove = useMutation(trpc.secrets.remove.mutationOptions());
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.secrets.list.queryKey({ kind: 'secret' }) });
  const { problem, setProblem, onSubmit } = useFormAction(async (data) => {
    const hosts = formText(data, 'hosts').split(',').map((h) => h.trim()).filter(Boolean);
    await set.mutateAsync({ kind: 'secret', name: formText(data, 'name'), value: formText(data, 'value', true), hosts });
    await refresh();
  });

  return (
    <section data-testid="secret-list">
      <div className="mb-6">
        <h1 className="text-2xl font-semibold tracking-tight">Secrets</h1>
        <p className="text-sm text-slate-600">
          Steps reference a secret by name (<code>{'{"secret": "NAME"}'}</code> in HTTP headers, <code>provider.apiKeySecret</code> for agents);
          it is sent only to the hosts listed here, goes into a stdio tool server&apos;s environment only when listed as <code>tool:NAME</code>
          (the server&apos;s name on the Tools page), and its value is never shown again.
        </p>
      </div>
      <form onSubmit={onSubmit} className="mb-6 grid grid-cols-[1fr_1fr_1fr_auto] items-end gap-2 rounded-lg border border-slate-200 bg-white p-3" data-testid="secret-set-form">
        <label className="block text-sm font-medium">
          Name
          <input name="name" required pattern="[A-Za-z_][A-Za-z0-9_]{0,127}" className={`mt-1 ${inputClass}`} placeholder="CRM_TOKEN" data-testid="secret-set-name" />
        </label>
        <label className="block text-sm font-medium">
          Value
          <input name="value" type="password" required autoComplete="off" className={`mt-1 ${inputClass}`} data-testid="secret-set-value" />
        </label>
        <label className="block text-sm font-medium">
          Hosts or tool servers it may go to
          <input name="hosts" required className={`mt-1 ${inputClass}`} placeholder="api.crm.example, *.crm.example, tool:search" data-testid="secret-set-hosts" />
        </label>
        <button type="submit" className={buttonClass.primary} disabled={set.isPending} data-testid="secret-set">Store secret</button>
        {problem && <p role="alert" className="col-span-4 text-sm text-red-700" data-testid="secret-set-error">{problem}</p>}
      </form>
      <AdminTable
        query={secrets}
        testId="secret-list"
        loading="Loading secrets…"
        empty="No secrets stored yet."
        rowKey={(s) => s.name}
        rowTestId={(s) => `secret-row-${s.name}`}
        columns={[
          { header: 'Name', className: 'font-mono text-xs font-medium', cell: (s) => s.name },
          { header: 'May go to', className: 'text-slate-600', cell: (s) => s.hosts.join(', ') },
          { header: 'Updated', className: 'text-slate-600', cell: (s) => `${formatDateTime(s.updatedAt)} by ${s.updatedBy}` },
          {
            header: '',
            className: 'text-right',
            cell: (s) => (
              <button type="button" className={buttonClass.ghost} data-testid={`secret-remove-${s.name}`}
                onClick={() => void remove.mutateAsync({ kind: 'secret', name: s.name }).then(refresh, (err: unknown) => setProblem(errorMessage(err)))}>
                Remove
              </button>
            ),
          },
        ]}
      />
    </section>
  );
}
