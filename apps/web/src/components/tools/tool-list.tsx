'use client';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { AdminTable } from '@/components/ui/admin-table';
import { buttonClass, inputClass } from '@/components/ui/button';
import { formatDateTime } from '@/components/ui/format';
import { errorMessage } from '@/trpc/errors';
import { useTRPC } from '@/trpc/client';

/** `A=b` lines as a record (blank lines skipped); a line without `=` is kept out and reported by the server's check. */
function lines(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split('\n').map((l) => l.trim()).filter(Boolean)) {
    const at = line.indexOf('=');
    if (at > 0) out[line.slice(0, at).trim()] = line.slice(at + 1).trim();
  }
  return out;
}

function field(form: FormData, name: string): string {
  const v = form.get(name);
  return typeof v === 'string' ? v.trim() : '';
}

/**
 * The registered MCP tool servers and a form to register one: a stdio command (arguments one per
 * line, environment and secret environment as NAME=value / NAME=secret-name lines) or a
 * streamable-HTTP URL. Secrets are named by their secrets-store name, never typed in here.
 */
export function ToolList() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const tools = useQuery(trpc.tools.list.queryOptions());
  const put = useMutation(trpc.tools.put.mutationOptions());
  const [transport, setTransport] = useState<'stdio' | 'http'>('stdio');
  const [problem, setProblem] = useState<string | null>(null);

  async function onSubmit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = e.currentTarget;
    const data = new FormData(form);
    setProblem(null);
    const config =
      transport === 'http'
        ? { transport, url: field(data, 'url'), secretHeaders: lines(field(data, 'secretHeaders')) }
        : {
            transport,
            command: field(data, 'command'),
            args: field(data, 'args').split('\n').map((a) => a.trim()).filter(Boolean),
            env: lines(field(data, 'env')),
            secretEnv: lines(field(data, 'secretEnv')),
          };
    try {
      await put.mutateAsync({ name: field(data, 'name'), config });
      form.reset();
      await queryClient.invalidateQueries({ queryKey: trpc.tools.list.queryKey() });
    } catch (err) {
      setProblem(errorMessage(err));
    }
  }

  const area = `mt-1 h-16 w-72 font-mono text-xs ${inputClass}`;
  return (
    <section data-testid="tool-list">
      <div className="mb-6">
        <h1 className="text-2xl font-semibold tracking-tight">Tools</h1>
        <p className="text-sm text-slate-600">
          MCP tool servers agents may use: an agent lists them by name in <code>tools</code>, and may call only those.
          The command a server runs is set here by an admin, never by a mesh.
        </p>
      </div>
      <form onSubmit={(e) => void onSubmit(e)} className="mb-6 flex flex-wrap items-end gap-3 rounded-lg border border-slate-200 bg-white p-3" data-testid="tool-add-form">
        <label className="block text-sm font-medium">
          Name
          <input name="name" required pattern="[A-Za-z0-9][A-Za-z0-9_\-]{0,62}" className={`mt-1 w-48 ${inputClass}`} placeholder="search" data-testid="tool-add-name" />
        </label>
        <label className="block text-sm font-medium">
          Transport
          <select value={transport} onChange={(e) => setTransport(e.target.value === 'http' ? 'http' : 'stdio')} className={`mt-1 ${inputClass}`} data-testid="tool-add-transport">
            <option value="stdio">stdio command</option>
            <option value="http">streamable HTTP</option>
          </select>
        </label>
        {transport === 'stdio' ? (
          <>
            <label className="block text-sm font-medium">
              Command
              <input name="command" required className={`mt-1 w-72 ${inputClass}`} placeholder="/usr/local/bin/search-mcp" data-testid="tool-add-command" />
            </label>
            <label className="block text-sm font-medium">
              Arguments (one a line)
              <textarea name="args" className={area} data-testid="tool-add-args" />
            </label>
            <label className="block text-sm font-medium">
              Environment (NAME=value)
              <textarea name="env" className={area} data-testid="tool-add-env" />
            </label>
            <label className="block text-sm font-medium">
              Secret environment (NAME=secret-name)
              <textarea name="secretEnv" className={area} data-testid="tool-add-secret-env" />
            </label>
          </>
        ) : (
          <>
            <label className="block text-sm font-medium">
              URL
              <input name="url" type="url" required className={`mt-1 w-72 ${inputClass}`} placeholder="https://tools.example.com/mcp" data-testid="tool-add-url" />
            </label>
            <label className="block text-sm font-medium">
              Secret headers (Header=secret-name)
              <textarea name="secretHeaders" className={area} data-testid="tool-add-secret-headers" />
            </label>
          </>
        )}
        <button type="submit" className={buttonClass.primary} disabled={put.isPending} data-testid="tool-add">
          Register tool server
        </button>
        {problem && <p role="alert" className="w-full text-sm text-red-700" data-testid="tool-add-error">{problem}</p>}
      </form>
      <AdminTable
        query={tools}
        testId="tool-list"
        loading="Loading tool servers…"
        empty="No tool servers registered yet."
        rowKey={(t) => t.name}
        rowTestId={(t) => `tool-row-${t.name}`}
        columns={[
          { header: 'Name', className: 'font-medium', cell: (t) => t.name },
          { header: 'Runs', className: 'font-mono text-xs text-slate-600', cell: (t) => (t.config.transport === 'stdio' ? [t.config.command, ...t.config.args].join(' ') : t.config.url) },
          { header: 'Secrets', className: 'font-mono text-xs text-slate-600', cell: (t) => Object.values(t.config.transport === 'stdio' ? t.config.secretEnv : t.config.secretHeaders).join(', ') || '—' },
          { header: 'Updated', className: 'text-slate-600', cell: (t) => formatDateTime(t.updatedAt) },
        ]}
      />
    </section>
  );
}
