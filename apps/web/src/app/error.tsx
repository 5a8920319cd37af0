'use client';
/** Any page error: a plain sentence and a way out; never a stack trace. */
import Link from 'next/link';

export default function ErrorPage({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  return (
    <main className="mx-auto max-w-lg px-6 py-16" data-testid="error-page">
      <h1 className="text-xl font-semibold">This page could not be shown</h1>
      <p className="mt-2 text-sm text-slate-600">
        Something went wrong while loading it. Try again; if it keeps happening, the server log has the details
        {error.digest ? <> under reference <span className="font-mono">{error.digest}</span></> : null}.
      </p>
      <div className="mt-6 flex gap-3 text-sm">
        <button type="button" onClick={reset} className="rounded-md bg-slate-900 px-3 py-1.5 font-medium text-white hover:bg-slate-700">Try again</button>
        <Link href="/meshes" className="rounded-md border border-slate-300 px-3 py-1.5 hover:bg-slate-50">Go to meshes</Link>
      </div>
    </main>
  );
}
