'use client';
import { signIn } from 'next-auth/react';
import { useState, type FormEvent } from 'react';

export function SignInForm({ next }: { next: string }) {
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function onSubmit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    const field = (name: string) => {
      const v = form.get(name);
      return typeof v === 'string' ? v : '';
    };
    setBusy(true);
    setError(null);
    try {
      const res = await signIn('credentials', {
        email: field('email'),
        password: field('password'),
        redirect: false,
      });
      if (res?.ok) {
        window.location.assign(next);
        return;
      }
      // Other errors are the server's own sentences (e.g. the database or Redis is unreachable, and how to fix it).
      setError(res?.error === 'CredentialsSignin' ? 'That email and password do not match.' : `Signing in failed: ${res?.error ?? 'try again'}`);
    } catch {
      setError('The server could not be reached; try again.');
    }
    setBusy(false);
  }

  return (
    <form onSubmit={(e) => void onSubmit(e)} className="space-y-4 rounded-lg border border-slate-200 bg-white p-6 shadow-sm" data-testid="signin-form">
      <label className="block text-sm font-medium">
        Email
        <input name="email" type="email" required autoComplete="username" data-testid="signin-email"
          className="mt-1 block w-full rounded-md border border-slate-300 px-3 py-2 text-sm focus:border-sky-500 focus:outline-none" />
      </label>
      <label className="block text-sm font-medium">
        Password
        <input name="password" type="password" required autoComplete="current-password" data-testid="signin-password"
          className="mt-1 block w-full rounded-md border border-slate-300 px-3 py-2 text-sm focus:border-sky-500 focus:outline-none" />
      </label>
      {error && (
        <p role="alert" className="rounded-md bg-red-50 px-3 py-2 text-sm text-red-700" data-testid="signin-error">
          {error}
        </p>
      )}
      <button type="submit" disabled={busy} data-testid="signin-submit"
        className="w-full rounded-md bg-slate-900 px-3 py-2 text-sm font-medium text-white hover:bg-slate-700 disabled:opacity-50">
        {busy ? 'Signing in…' : 'Sign in'}
      </button>
    </form>
  );
}
