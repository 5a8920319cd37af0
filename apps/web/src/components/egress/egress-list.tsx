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
 * The install's egress policy for admins: the hosts steps, agent providers, tool servers and code
 * may reach. With no rules the TRELLIS_EGRESS_ALLOW default holds (shown as "in force"). Loopback,
 * private and metadata addresses stay refused after DNS unless a rule allows that exact host as
 * internal. A mesh's own `allowHosts` only narrows this.
 */
export function EgressList() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const policy = useQuery(trpc.egress.list.queryOptions());
  const allow = useMutation(trpc.egress.allow.mutationOptions());
  const remove = useMutation(trpc.egress.remove.mutationOptions());
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.egress.list.queryKey() });
  const rules = { ...policy, data: policy.data?.rules };
  const { problem, setProblem, onSubmit } = useFormAction(async (data) => {
    await allow.mutateAsync({ pattern: formText(data, 'pattern'), internal: data.get('internal') === 'on' });
    await refresh();
  });

  return (
    <section data-testid="egress-list">
      <div className="mb-6">
        <h1 className="text-2xl font-semibold tracking-tight">Egress</h1>
        <p className="text-sm text-slate-600">
          Hosts that steps, agent providers, tool servers and code may reach: <code>*</code>, <code>*.example.com</code>, a host or <code>host:port</code>.
          Loopback, private and metadata addresses are refused after DNS and on every redirect, unless a rule allows that exact host as internal.
        </p>
        {policy.data && (
          <p className="mt-2 text-sm text-slate-700" data-testid="egress-in-force">
            In force{policy.data.rules.length === 0 ? ' (the TRELLIS_EGRESS_ALLOW default, no rules yet)' : ''}: <span className="font-mono text-xs">{policy.data.inForce.join(', ') || 'nothing'}</span>
          </p>
        )}
      </div>
      <form onSubmit={onSubmit} className="mb-6 flex flex-wrap items-end gap-3 rounded-lg border border-slate-200 bg-white p-3" data-testid="egress-allow-form">
        <label className="block text-sm font-medium">
          Host or pattern
          <input name="pattern" required className={`mt-1 w-72 ${inputClass}`} placeholder="api.example.com" data-testid="egress-allow-pattern" />
        </label>
        <label className="flex items-center gap-2 pb-1.5 text-sm">
          <input name="internal" type="checkbox" data-testid="egress-allow-internal" />
          may resolve to an internal address (exact host only)
        </label>
        <button type="submit" className={buttonClass.primary} disabled={allow.isPending} data-testid="egress-allow">Allow</button>
        {problem && <p role="alert" className="w-full text-sm text-red-700" data-testid="egress-allow-error">{problem}</p>}
      </form>
      <AdminTable
        query={rules}
        testId="egress-rules"
        loading="Loading the egress policy…"
        empty="No rules: the default above holds."
        rowKey={(r) => r.pattern}
        rowTestId={(r) => `egress-row-${r.pattern}`}
        columns={[
          { header: 'Pattern', className: 'font-mono text-xs font-medium', cell: (r) => r.pattern },
          { header: 'Internal', className: 'text-slate-600', cell: (r) => (r.internal ? 'yes' : '—') },
          { header: 'Added', className: 'text-slate-600', cell: (r) => `${formatDateTime(r.createdAt)} by ${r.createdBy}` },
          {
            header: '',
            className: 'text-right',
            cell: (r) => (
              <button type="button" className={buttonClass.ghost} data-testid={`egress-remove-${r.pattern}`}
                onClick={() => void remove.mutateAsync({ pattern: r.pattern }).then(refresh, (err: unknown) => setProblem(errorMessage(err)))}>
                Remove
              </button>
            ),
          },
        ]}
      />
    </section>
  );
}
