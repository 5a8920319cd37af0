'use client';
import { useMutation } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { ROLES, type Role } from '@trellis/engine/users/roles';
import { buttonClass, inputClass } from '@/components/ui/button';
import { formText } from '@/components/ui/form-text';
import { errorMessage } from '@/trpc/errors';
import { useTRPC } from '@/trpc/client';

/** Adds a person with a role; the generated password is shown once, to hand over. */
export function AddUserForm({ onAdded }: { onAdded: () => void }) {
  const trpc = useTRPC();
  const add = useMutation(trpc.users.add.mutationOptions());
  const [problem, setProblem] = useState<string | null>(null);
  const [invited, setInvited] = useState<{ email: string; password: string } | null>(null);

  async function onSubmit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = e.currentTarget;
    const data = new FormData(form);
    const text = (k: string) => formText(data, k);
    setProblem(null);
    setInvited(null);
    try {
      const added = await add.mutateAsync({ email: text('email'), name: text('name') || undefined, role: text('role') as Role });
      if (added.password) setInvited({ email: added.email, password: added.password });
      form.reset();
      onAdded();
    } catch (err) {
      setProblem(errorMessage(err));
    }
  }

  return (
    <>
      <form onSubmit={(e) => void onSubmit(e)} className="mb-6 flex flex-wrap items-end gap-2 rounded-lg border border-slate-200 bg-white p-3" data-testid="user-add-form">
        <label className="block text-sm font-medium">
          Email
          <input name="email" type="email" required className={`mt-1 w-64 ${inputClass}`} data-testid="user-add-email" />
        </label>
        <label className="block text-sm font-medium">
          Name
          <input name="name" className={`mt-1 w-48 ${inputClass}`} data-testid="user-add-name" />
        </label>
        <label className="block text-sm font-medium">
          Role
          <select name="role" defaultValue="viewer" className={`mt-1 w-36 ${inputClass}`} data-testid="user-add-role">
            {ROLES.map((r) => <option key={r} value={r}>{r}</option>)}
          </select>
        </label>
        <button type="submit" className={buttonClass.primary} disabled={add.isPending} data-testid="user-add">
          Add person
        </button>
        {problem && <p role="alert" className="w-full text-sm text-red-700" data-testid="user-add-error">{problem}</p>}
      </form>
      {invited && (
        <div role="status" className="mb-6 rounded-lg border border-amber-300 bg-amber-50 p-4 text-sm" data-testid="user-invite">
          <p className="font-medium text-amber-900">{invited.email} can sign in with this password (shown only now); they can change it after signing in:</p>
          <code className="mt-2 block select-all rounded bg-white px-2 py-1 font-mono text-xs" data-testid="user-invite-password">{invited.password}</code>
          <button type="button" className={`mt-3 ${buttonClass.secondary}`} onClick={() => setInvited(null)}>Done</button>
        </div>
      )}
    </>
  );
}
