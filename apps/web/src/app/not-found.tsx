import Link from 'next/link';

export default function NotFound() {
  return (
    <main className="mx-auto max-w-lg px-6 py-16" data-testid="not-found">
      <h1 className="text-xl font-semibold">Not found</h1>
      <p className="mt-2 text-sm text-slate-600">There is nothing at this address.</p>
      <Link href="/meshes" className="mt-6 inline-block text-sm text-sky-700 hover:underline">Go to meshes</Link>
    </main>
  );
}
