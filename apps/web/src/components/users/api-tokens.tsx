'use client';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { SCOPES, type Scope } from '@trellis/engine/tokens/scopes';
import { buttonClass, inputClass } from '@/components/ui/button';
import { formText } from '@/components/ui/form-text';
import { formatDateTime } from '@/components/ui/format';
import { errorMessage } from '@/trpc/errors';
import { useTRPC } from '@/trpc/client';

/**
 * The person's API tokens: create one (shown once; sent as `Authorization: Bearer <token>` to the
 * REST API and the live-updates stream), see when each was last used, revoke it.
 */
export function ApiTokens() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const tokens = useQuery(trpc.tokens.list.queryOptions());
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.tokens.list.queryKey() });
  const create = useMutation(trpc.tokens.create.mutationOptions({ onSuccess: refresh }));
  const revoke = useMutation(trpc.tokens.revoke.mutationOptions({ onSuccess: refresh }));
  const [problem, setProblem] = useState<string | null>(null);
  const [shown, setShown] = useState<string | null>(null);

  async function onSubmit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = e.currentTarget;
    const data = new FormData(form);
    setProblem(null);
    try {
      const made = await create.mutateAsync({ name: formText(data, 'name'), scope: formText(data, 'scope') as Scope, expiresInDays: Number(formText(data, 'days')) });
      setShown(made.token);
      form.reset();
    } catch (err) {
      setProblem(errorMessage(err));
    }
  }

  return (
    <section className="space-y-3 rounded-lg border border-slate-200 bg-white p-4" data-testid="tokens">
      <h2 className="font-medium">API tokens</h2>
      <form onSubmit={(e) => void onSubmit(e)} className="flex flex-wrap items-end gap-2">
        <label className="block text-sm font-medium">
          Name
          <input name="name" required maxLength={100} className={`mt-1 w-48 ${inputClass}`} data-testid="token-name" />
        </label>
        <label className="block text-sm font-medium">
          Scope
          <select name="scope" defaultValue="read" className={`mt-1 w-32 ${inputClass}`} data-testid="token-scope">
            {SCOPES.map((s) => <option key={s} value={s}>{s}</option>)}
          </select>
        </label>
        <label className="block text-sm font-medium">
          Expires in (days)
          <input name="days" type="number" min={1} max={365} defaultValue={90} required className={`mt-1 w-28 ${inputClass}`} data-testid="token-days" />
        </label>
        <button type="submit" className={buttonClass.primary} disabled={create.isPending} data-testid="token-create">Create token</button>
      </form>
      {problem && <p role="alert" className="text-sm text-red-700" data-testid="token-error">{problem}</p>}
      {shown && (
        <div role="status" className="rounded-md border border-amber-300 bg-amber-50 p-3 text-sm">
          <p className="font-medium text-amber-900">Copy the token now: it is shown only this once.</p>
          <code className="mt-1 block select-all break-all rounded bg-white px-2 py-1 font-mono text-xs" data-testid="token-value">{shown}</code>
          <button type="button" className={`mt-2 ${buttonClass.secondary}`} onClick={() => setShown(null)}>I have copied it</button>
        </div>
      )}
      {tokens.data && tokens.data.length > 0 && (
        <table className="w-full text-left text-sm">
          <tbody>
            {tokens.data.map((t) => (
              <tr key={t.id} className="border-t border-slate-100" data-testid={`token-row-${t.name}`}>
                <td className="py-2 font-medium">{t.name}</td>
                <td className="py-2 font-mono text-xs text-slate-600">{t.prefix}…</td>
                <td className="py-2">{t.scope}</td>
                <td className="py-2 text-slate-600">{t.lastUsedAt ? `used ${formatDateTime(t.lastUsedAt)}` : 'never used'}</td>
                <td className="py-2 text-slate-600">{t.expiresAt ? `expires ${formatDateTime(t.expiresAt)}` : 'never expires'}</td>
                <td className="py-2 text-right">
                  {t.revokedAt ? <span className="text-slate-500">revoked</span> : (
                    <button type="button" className={buttonClass.danger} data-testid={`token-revoke-${t.name}`}
                      onClick={() => void revoke.mutateAsync({ id: t.id }).catch((err: unknown) => setProblem(errorMessage(err)))}>
                      Revoke
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
