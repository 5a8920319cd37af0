import type { Metadata } from 'next';
import { ToolList } from '@/components/tools/tool-list';

export const metadata: Metadata = { title: 'Tools' };

/** MCP tool servers (admins): the registered ones, and a form to register one. */
export default function ToolsPage() {
  return (
    <main className="mx-auto w-full max-w-5xl px-6 py-8">
      <ToolList />
    </main>
  );
}
