import type { Metadata } from 'next';
import { notFound } from 'next/navigation';
import { ToolList } from '@/components/tools/tool-list';
import { currentUser } from '@/server/auth';

export const metadata: Metadata = { title: 'Tools' };

/** MCP tool servers (admins only; the procedures refuse anyone else as well): the registered ones, and a form to register one. */
export default async function ToolsPage() {
  if ((await currentUser())?.role !== 'admin') notFound();
  return (
    <main className="mx-auto w-full max-w-5xl px-6 py-8">
      <ToolList />
    </main>
  );
}
