import type { Metadata } from 'next';
import { notFound } from 'next/navigation';
import { AuditLog } from '@/components/audit/audit-log';
import { currentUser } from '@/server/auth';

export const metadata: Metadata = { title: 'Audit' };

/** The sealed audit trail (admins only; the procedures refuse anyone else as well). */
export default async function AuditPage() {
  if ((await currentUser())?.role !== 'admin') notFound();
  return (
    <main className="mx-auto w-full max-w-6xl px-6 py-8">
      <AuditLog />
    </main>
  );
}
