import type { Metadata } from 'next';
import { notFound } from 'next/navigation';
import { SecretList } from '@/components/secrets/secret-list';
import { currentUser } from '@/server/auth';

export const metadata: Metadata = { title: 'Secrets' };

/** Secrets steps may send (admins only; the procedures refuse anyone else as well): names and hosts, a form to store one; values are never shown (docs/security.md). */
export default async function SecretsPage() {
  if ((await currentUser())?.role !== 'admin') notFound();
  return (
    <main className="mx-auto w-full max-w-5xl px-6 py-8">
      <SecretList />
    </main>
  );
}
