/**
 * The assistant panel on every page: "what broke today?" is answered with the counts in the
 * database (runs.list totals), and a re-open it proposes happens only after "yes".
 */
import { expect, test, type Page } from '@playwright/test';
import { signIn } from '../support/session';
import { importFailingMesh, startRun } from '../support/api';

async function trpc(page: Page, path: string, input: unknown): Promise<unknown> {
  const res = await page.request.post(`/api/trpc/${path}`, { data: { json: input } });
  expect(res.status(), await res.text()).toBe(200);
  return ((await res.json()) as { result: { data: { json: unknown } } }).result.data.json;
}

async function statusOf(page: Page, runId: string): Promise<string> {
  return ((await trpc(page, 'runs.get', { runId })) as { status: string }).status;
}

test('the assistant answers "what broke today?" with the right counts and re-opens only after yes', async ({ page }) => {
  await signIn(page);
  const { name, meshId } = await importFailingMesh(page, 'e2e-assist');
  const runs = [await startRun(page, meshId, 'a b'), await startRun(page, meshId, 'c d')];
  await expect.poll(async () => Promise.all(runs.map((r) => statusOf(page, r))), { timeout: 30_000 }).toEqual(['failed', 'failed']);

  // Every run in this fresh database started today, so today's failures are all failed and stalled runs.
  const failed = ((await trpc(page, 'runs.list', { status: 'failed', limit: 1 })) as { total: number }).total;
  const stalled = ((await trpc(page, 'runs.list', { status: 'stalled', limit: 1 })) as { total: number }).total;

  await page.goto('/runs');
  await page.getByTestId('assistant-toggle').click();
  await page.getByTestId('assistant-input').fill('What broke today?');
  await page.getByTestId('assistant-send').click();
  const answer = page.getByTestId('assistant-answer').last();
  await expect(answer).toContainText(`${failed + stalled} run${failed + stalled === 1 ? '' : 's'} failed or stalled today (UTC)`);
  await expect(answer).toContainText(`- ${name}: 2 runs step_code_failed at cut`);

  await page.getByTestId('assistant-input').fill(`re-open the failed runs of mesh ${name}`);
  await page.getByTestId('assistant-send').click();
  await expect(page.getByTestId('assistant-answer').last()).toContainText("Re-open 2 runs from member cut on each run's own version (v1).");
  expect(await Promise.all(runs.map((r) => statusOf(page, r)))).toEqual(['failed', 'failed']);
  await page.getByTestId('assistant-yes').click();
  await expect(page.getByTestId('assistant-answer').last()).toContainText('Re-opened 2 runs');
  // The member is still broken on v1, so both fail again; their history shows the second attempt.
  await expect.poll(async () => Promise.all(runs.map((r) => statusOf(page, r))), { timeout: 30_000 }).toEqual(['failed', 'failed']);
  const history = (await trpc(page, 'runs.attempts', { runId: runs[0] })) as { attempt: number }[];
  expect(history.map((a) => a.attempt)).toEqual([1, 2]);
});
