import type { Metadata } from 'next';
import { ActionCenter } from '@/components/ops/action-center';

export const metadata: Metadata = { title: 'Action Center' };

export default function ActionsPage() {
  return (
    <main className="mx-auto w-full max-w-7xl px-6 py-8">
      <ActionCenter />
    </main>
  );
}
