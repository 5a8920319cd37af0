import type { Metadata } from 'next';
import { SecretList } from '@/components/secrets/secret-list';

export const metadata: Metadata = { title: 'Secrets' };

/** Secrets steps may send (admins): names and hosts, a form to store one; values are never shown (docs/security.md). */
export default function SecretsPage() {
  return (
    <main className="mx-auto w-full max-w-5xl px-6 py-8">
      <SecretList />
    </main>
  );
}
