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
 * Named SQL connections for admins: a SQL step's `connection` names one to reach a database other
 * than Trellis's own. The URL (with its password) is sealed like a secret and never shown again:
 * the list answers names and who changed them.
 */
export function ConnectionList() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const connections = useQuery(trpc.secrets.list.queryOptions({ kind: 'connection' }));
  const set = useMutation(trpc.secrets.set.mutationOptions());
  const remove = useMutation(trpc.secrets.remove.mutationOptions());
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.secrets.list.queryKey({ kind: 'connection' }) });
  const { problem, setProblem, onSubmit } = useFormAction(async (data) => {
    await set.mutateAsync({ kind: 'connection', name: formText(data, 'name'), value: formText(data, 'url') });
    await refresh();
  });

  return (
    <section data-testid="connection-list">
      <div className="mb-6">
        <h1 className="text-2xl font-semibold tracking-tight">Connections</h1>
        <p className="text-sm text-slate-600">
          A SQL step reaches a database other than Trellis&apos;s own by naming a connection here (<code>{'"connection": "CRM_DB"'}</code>).
          The URL is sealed and never shown again; <code>trellis</code> is Trellis&apos;s own database, as a restricted role.
        </p>
      </div>
      <form onSubmit={onSubmit} className="mb-6 grid grid-cols-[1fr_2fr_auto] items-end gap-2 rounded-lg border border-slate-200 bg-white p-3" data-testid="connection-set-form">
        <label className="block text-sm font-medium">
          Name
          <input name="name" required pattern="[A-Za-z_][A-Za-z0-9_]{0,127}" className={`mt-1 ${inputClass}`} placeholder="CRM_DB" data-testid="connection-set-name" />
        </label>
        <label className="block text-sm font-medium">
          Postgres URL
          <input name="url" type="password" required autoComplete="off" className={`mt-1 ${inputClass}`} placeholder="postgres://user:password@db.example:5432/crm" data-testid="connection-set-url" />
        </label>
        <button type="submit" className={buttonClass.primary} disabled={set.isPending} data-testid="connection-set">Store connection</button>
        {problem && <p role="alert" className="col-span-3 text-sm text-red-700" data-testid="connection-set-error">{problem}</p>}
      </form>
      <AdminTable
        query={connections}
        testId="connection-list"
        loading="Loading connections…"
        empty="No connections stored yet."
        rowKey={(c) => c.name}
        rowTestId={(c) => `connection-row-${c.name}`}
        columns={[
          { header: 'Name', className: 'font-mono text-xs font-medium', cell: (c) => c.name },
          { header: 'Updated', className: 'text-slate-600', cell: (c) => `${formatDateTime(c.updatedAt)} by ${c.updatedBy}` },
          {
            header: '',
            className: 'text-right',
            cell: (c) => (
              <button type="button" className={buttonClass.ghost} data-testid={`connection-remove-${c.name}`}
                onClick={() => void remove.mutateAsync({ kind: 'connection', name: c.name }).then(refresh, (err: unknown) => setProblem(errorMessage(err)))}>
                Remove
              </button>
            ),
          },
        ]}
      />
    </section>
  );
}
