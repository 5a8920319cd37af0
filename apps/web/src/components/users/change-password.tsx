'use client';
import { useMutation } from '@tanstack/react-query';
import { signOut } from 'next-auth/react';
import { useState, type FormEvent } from 'react';
import { buttonClass, inputClass } from '@/components/ui/button';
import { formText } from '@/components/ui/form-text';
import { errorMessage } from '@/trpc/errors';
import { useTRPC } from '@/trpc/client';

/** A person changes their own password; every session of theirs ends, so they sign in again. */
export function ChangePassword() {
  const trpc = useTRPC();
  const change = useMutation(trpc.account.changePassword.mutationOptions());
  const [problem, setProblem] = useState<string | null>(null);

  async function onSubmit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const data = new FormData(e.currentTarget);
    const text = (k: string) => formText(data, k, true);
    const current = text('current');
    const password = text('password');
    setProblem(null);
    if (password !== text('again')) return setProblem('the new passwords differ');
    try {
      await change.mutateAsync({ current, password });
      await signOut({ callbackUrl: '/signin' });
    } catch (err) {
      setProblem(errorMessage(err));
    }
  }

  return (
    <form onSubmit={(e) => void onSubmit(e)} className="max-w-sm space-y-3 rounded-lg border border-slate-200 bg-white p-4" data-testid="password-form">
      <h2 className="font-medium">Change your password</h2>
      {(['current', 'password', 'again'] as const).map((name) => (
        <label key={name} className="block text-sm font-medium">
          {name === 'current' ? 'Current password' : name === 'password' ? 'New password (at least 10 characters)' : 'New password again'}
          <input name={name} type="password" required minLength={name === 'current' ? 1 : 10} className={`mt-1 ${inputClass}`} data-testid={`password-${name}`} />
        </label>
      ))}
      <button type="submit" className={buttonClass.primary} disabled={change.isPending} data-testid="password-save">
        Change password
      </button>
      {problem && <p role="alert" className="text-sm text-red-700" data-testid="password-error">{problem}</p>}
    </form>
  );
}
