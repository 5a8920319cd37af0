import type { Metadata } from 'next';
import { RunList } from '@/components/runs/run-list';

export const metadata: Metadata = { title: 'Runs' };

export default function RunsPage() {
  return (
    <main className="mx-auto w-full max-w-7xl px-6 py-8">
      <RunList />
    </main>
  );
}
