import type { Metadata } from 'next';
import { ServiceList } from '@/components/services/service-list';

export const metadata: Metadata = { title: 'Services' };

/** Outside services: the ones registered, and a form to register one (its API key is shown once). */
export default function ServicesPage() {
  return (
    <main className="mx-auto w-full max-w-5xl px-6 py-8">
      <ServiceList />
    </main>
  );
}
