'use client';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { ROLES } from '@trellis/engine/users/roles';
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
      {users.isError && <p role="alert" className="rounded-md bg-red-50 px-3 py-2 text-sm text-red-700">{errorMessage(users.error)}</p>}
      {users.isPending && <p className="text-sm text-slate-500">Loading users…</p>}
      {users.data && (
        <div className="overflow-hidden rounded-lg border border-slate-200 bg-white">
          <table className="w-full text-left text-sm">
            <thead className="border-b border-slate-200 bg-slate-50 text-xs uppercase tracking-wide text-slate-500">
              <tr>
                <th className="px-4 py-2 font-medium">Email</th>
                <th className="px-4 py-2 font-medium">Role</th>
                <th className="px-4 py-2 font-medium">Added</th>
                <th className="px-4 py-2 font-medium" />
              </tr>
            </thead>
            <tbody>
              {users.data.map((u) => (
                <tr key={u.id} className="border-b border-slate-100 last:border-0" data-testid={`user-row-${u.email}`}>
                  <td className="px-4 py-2.5 font-medium">
                    {u.email}
                    {u.disabled && <span className="ml-2 rounded bg-slate-100 px-1.5 py-0.5 text-xs text-slate-600">disabled</span>}
                  </td>
                  <td className="px-4 py-2.5">
                    <select aria-label={`Role of ${u.email}`} className={`w-36 ${inputClass}`} value={u.role} data-testid={`user-role-${u.email}`}
                      onChange={(e) => void attempt(() => setRole.mutateAsync({ user: u.id, role: e.target.value as (typeof ROLES)[number] }))}>
                      {ROLES.map((r) => <option key={r} value={r}>{r}</option>)}
                    </select>
                  </td>
                  <td className="px-4 py-2.5 text-slate-600">{formatDateTime(u.createdAt)}</td>
                  <td className="space-x-2 px-4 py-2.5 text-right">
                    {u.id !== selfId && (
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
                    )}
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
