/**
 * Re-open from the run page: a word-split run fails at a broken member; the fix is saved as a new
 * version; the run page shows the cause, the Re-open button asks for confirmation stating how many
 * runs and from which member, on the chosen version, and the run ends done with the exact input
 * as output, its history listing both attempts.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect, test, type Page } from '@playwright/test';
import { signIn } from '../support/session';
import { importMesh, startRun } from '../support/api';

const wordSplit = JSON.parse(readFileSync(fileURLToPath(new URL('../../examples/meshes/word-split.json', import.meta.url)), 'utf8')) as {
  name: string;
  members: { id: string; steps?: unknown[] }[];
};
const withWords = (name: string, field: string) => ({
  ...wordSplit,
  name,
  members: wordSplit.members.map((m) => (m.id === 'words' ? { ...m, steps: [{ type: 'split', by: 'word', field }] } : m)),
});

async function trpc(page: Page, path: string, input: unknown): Promise<unknown> {
  const res = await page.request.post(`/api/trpc/${path}`, { data: { json: input } });
  expect(res.status(), await res.text()).toBe(200);
  return ((await res.json()) as { result: { data: { json: unknown } } }).result.data.json;
}

test('re-open a failed run from the run page on the latest version turns it done', async ({ page }) => {
  await signIn(page);
  const name = `e2e-reopen-${Date.now().toString(36)}`;
  const meshId = await importMesh(page, withWords(name, 'nope'));
  const text = 'one two\nthree four\n';
  const runId = await startRun(page, meshId, text);
  await page.goto(`/runs/${runId}`);
  await expect(page.getByTestId('run-view')).toHaveAttribute('data-status', 'failed', { timeout: 30_000 });
  await expect(page.getByTestId('run-cause')).toHaveAttribute('data-cause', 'step_code_failed');
  await expect(page.getByTestId('run-cause')).toContainText('Split words');

  const saved = (await trpc(page, 'meshes.save', { meshId, baseVersion: 1, definition: withWords(name, 'text') })) as { ok: boolean; version: number };
  expect(saved).toMatchObject({ ok: true, version: 2 });

  await page.getByTestId('run-reopen').click();
  const dialog = page.getByTestId('reopen-confirm');
  await expect(dialog.getByTestId('reopen-summary')).toHaveText("Re-open 1 run from member words on each run's own version (v1).");
  await dialog.getByTestId('reopen-latest').check();
  await expect(dialog.getByTestId('reopen-summary')).toHaveText('Re-open 1 run from member words on the latest saved version (v2).');
  await dialog.getByTestId('reopen-yes').click();

  await expect(page.getByTestId('run-view')).toHaveAttribute('data-status', 'done', { timeout: 30_000 });
  const run = (await trpc(page, 'runs.get', { runId })) as { output: { text: string }; meshVersion: number };
  expect(run.output.text).toBe(text);
  expect(run.meshVersion).toBe(2);
  await expect(page.getByTestId('run-attempt-1')).toContainText('failed');
  await expect(page.getByTestId('run-attempt-2')).toContainText('v2 (latest)');
  await expect(page.getByTestId('run-attempt-2')).toContainText('done');
  await expect(page.getByTestId('run-reopen')).toHaveCount(0);
});
