import type { Metadata } from 'next';
import { ExceptionsFeed } from '@/components/ops/exceptions-feed';

export const metadata: Metadata = { title: 'Exceptions' };

export default function ExceptionsPage() {
  return (
    <main className="mx-auto w-full max-w-7xl px-6 py-8">
      <ExceptionsFeed />
    </main>
  );
}
