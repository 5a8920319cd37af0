import type { Metadata } from 'next';
import { notFound } from 'next/navigation';
import { EgressList } from '@/components/egress/egress-list';
import { currentUser } from '@/server/auth';

export const metadata: Metadata = { title: 'Egress' };

/** The install's egress policy (admins only; the procedures refuse anyone else as well), docs/security.md. */
export default async function EgressPage() {
  if ((await currentUser())?.role !== 'admin') notFound();
  return (
    <main className="mx-auto w-full max-w-5xl px-6 py-8">
      <EgressList />
    </main>
  );
}
