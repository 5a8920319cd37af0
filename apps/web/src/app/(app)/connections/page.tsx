import type { Metadata } from 'next';
import { notFound } from 'next/navigation';
import { ConnectionList } from '@/components/secrets/connection-list';
import { currentUser } from '@/server/auth';

export const metadata: Metadata = { title: 'Connections' };

/** Named SQL connections (admins only; the procedures refuse anyone else as well): names, never URLs (docs/security.md). */
export default async function ConnectionsPage() {
  if ((await currentUser())?.role !== 'admin') notFound();
  return (
    <main className="mx-auto w-full max-w-5xl px-6 py-8">
      <ConnectionList />
    </main>
  );
}
