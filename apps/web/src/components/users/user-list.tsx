'use client';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { ROLES } from '@trellis/engine/users/roles';
import { AdminTable } from '@/components/ui/admin-table';
import { buttonClass, inputClass } from '@/components/ui/button';
import { formatDateTime } from '@/components/ui/format';
import { errorMessage } from '@/trpc/errors';
import { useTRPC } from '@/trpc/client';
import { AddUserForm } from './add-user-form';

/**
 * The admins' Users page: everyone who can sign in, their role (changed in place), disable or
 * enable, remove; and the form to add a person. Every change but enabling ends that person's
 * open sessions. The server enforces the roles; this page only offers what admins may do.
 */
export function UserList({ selfId }: { selfId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const users = useQuery(trpc.users.list.queryOptions());
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.users.list.queryKey() });
  const setRole = useMutation(trpc.users.setRole.mutationOptions({ onSuccess: refresh }));
  const setDisabled = useMutation(trpc.users.setDisabled.mutationOptions({ onSuccess: refresh }));
  const remove = useMutation(trpc.users.remove.mutationOptions({ onSuccess: refresh }));
  const [problem, setProblem] = useState<string | null>(null);

  async function attempt(fn: () => Promise<unknown>) {
    setProblem(null);
    try {
      await fn();
    } catch (err) {
      setProblem(errorMessage(err));
    }
  }

  return (
    <section data-testid="user-list">
      <div className="mb-6">
        <h1 className="text-2xl font-semibold tracking-tight">Users</h1>
        <p className="text-sm text-slate-600">
          Admins do everything; designers create, edit and run meshes; operators start and re-open runs and work the Action Center;
          viewers read. Changing a role, disabling or removing someone signs them out everywhere.
        </p>
      </div>
      <AddUserForm onAdded={() => void refresh()} />
      {problem && <p role="alert" className="mb-4 rounded-md bg-red-50 px-3 py-2 text-sm text-red-700" data-testid="user-error">{problem}</p>}
      <AdminTable
        query={users}
        testId="user-list"
        loading="Loading users…"
        empty="No users."
        rowKey={(u) => u.id}
        rowTestId={(u) => `user-row-${u.email}`}
        columns={[
          {
            header: 'Email',
            className: 'font-medium',
            cell: (u) => (
              <>
                {u.email}
                {u.disabled && <span className="ml-2 rounded bg-slate-100 px-1.5 py-0.5 text-xs text-slate-600">disabled</span>}
              </>
            ),
          },
          {
            header: 'Role',
            cell: (u) => (
              <select aria-label={`Role of ${u.email}`} className={`w-36 ${inputClass}`} value={u.role} data-testid={`user-role-${u.email}`}
                onChange={(e) => void attempt(() => setRole.mutateAsync({ user: u.id, role: e.target.value as (typeof ROLES)[number] }))}>
                {ROLES.map((r) => <option key={r} value={r}>{r}</option>)}
              </select>
            ),
          },
          { header: 'Added', className: 'text-slate-600', cell: (u) => formatDateTime(u.createdAt) },
          {
            header: '',
            className: 'space-x-2 text-right',
            cell: (u) =>
              u.id !== selfId && (
                <>
                  <button type="button" className={buttonClass.secondary} data-testid={`user-toggle-${u.email}`}
                    onClick={() => void attempt(() => setDisabled.mutateAsync({ user: u.id, disabled: !u.disabled }))}>
                    {u.disabled ? 'Enable' : 'Disable'}
                  </button>
                  <button type="button" className={buttonClass.danger} data-testid={`user-remove-${u.email}`}
                    onClick={() => window.confirm(`Remove ${u.email}? They are signed out at once.`) && void attempt(() => remove.mutateAsync({ user: u.id }))}>
                    Remove
                  </button>
                </>
              ),
          },
        ]}
      />
    </section>
  );
}
