'use client';
import { signIn } from 'next-auth/react';
import { useState } from 'react';

/** Starts single sign-on: next-auth sends the browser to the identity provider and back. */
export function SsoButton({ name, next }: { name: string; next: string }) {
  const [busy, setBusy] = useState(false);
  return (
    <button
      type="button"
      disabled={busy}
      data-testid="signin-sso"
      onClick={() => {
        setBusy(true);
        void signIn('oidc', { callbackUrl: next });
      }}
      className="w-full rounded-md border border-slate-300 bg-white px-3 py-2 text-sm font-medium text-slate-900 hover:bg-slate-50 disabled:opacity-50"
    >
      {busy ? 'Opening…' : `Sign in with ${name}`}
    </button>
  );
}
