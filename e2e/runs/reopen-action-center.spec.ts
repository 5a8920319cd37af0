/**
 * Re-open from the Action Center: a run fails at a broken member, the fix is saved as version 2,
 * and the failure's item re-opens its runs on the latest version after the confirmation; the run
 * ends done with the exact input as output.
 */
import { expect, test, type Page } from '@playwright/test';
import { signIn } from '../support/session';
import { importMesh, startRun } from '../support/api';

const mesh = (name: string, field: string) => ({
  format: 'trellis.mesh/v1',
  name,
  members: [
    { id: 'head', kind: 'workflow', head: true, label: 'Split lines', steps: [{ type: 'split', by: 'line', field: 'text' }] },
    { id: 'cut', kind: 'workflow', label: 'Cut words', steps: [{ type: 'split', by: 'word', field }] },
    { id: 'join-words', kind: 'combine', merge: { type: 'concat', field: 'text' } },
    { id: 'join-lines', kind: 'combine', merge: { type: 'concat', field: 'text' } },
  ],
  channels: [
    { from: 'head', to: 'cut' },
    { from: 'cut', to: 'join-words' },
    { from: 'join-words', to: 'join-lines' },
  ],
});

async function trpc(page: Page, path: string, input: unknown): Promise<unknown> {
  const res = await page.request.post(`/api/trpc/${path}`, { data: { json: input } });
  expect(res.status(), await res.text()).toBe(200);
  return ((await res.json()) as { result: { data: { json: unknown } } }).result.data.json;
}

async function runOf(page: Page, runId: string): Promise<{ status: string; output: { text?: string } | null }> {
  return (await trpc(page, 'runs.get', { runId })) as { status: string; output: { text?: string } | null };
}

test('re-open from the Action Center on the latest version turns a failed run done', async ({ page }) => {
  await signIn(page, '/actions');
  const name = `e2e-ac-reopen-${Date.now().toString(36)}`;
  const meshId = await importMesh(page, mesh(name, 'nope'));
  const text = 'alpha beta\ngamma';
  const runId = await startRun(page, meshId, text);
  await expect.poll(async () => (await runOf(page, runId)).status, { timeout: 30_000 }).toBe('failed');
  const saved = (await trpc(page, 'meshes.save', { meshId, baseVersion: 1, definition: mesh(name, 'text') })) as { ok: boolean; version: number };
  expect(saved).toMatchObject({ ok: true, version: 2 });

  await page.goto('/actions');
  const item = page.locator(`[data-testid="action-item"][data-mesh="${name}"]`);
  await expect(item).toBeVisible({ timeout: 25_000 });
  await item.getByTestId('action-reopen').click();
  const dialog = page.getByTestId('reopen-confirm');
  await dialog.getByTestId('reopen-latest').check();
  await expect(dialog.getByTestId('reopen-summary')).toHaveText('Re-open 1 run from member cut on the latest saved version (v2).');
  await dialog.getByTestId('reopen-yes').click();

  await expect.poll(async () => (await runOf(page, runId)).status, { timeout: 30_000 }).toBe('done');
  expect((await runOf(page, runId)).output?.text).toBe(text);
});
