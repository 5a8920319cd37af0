/**
 * The assistant's "today" is the viewer's local day: the browser sends its time zone with the
 * question, the answer names the zone, and the same run is today's on the Runs tab.
 */
import { expect, test, type Page } from '@playwright/test';
import { importFailingMesh, startRun } from '../support/api';
import { signIn } from '../support/session';

async function failedRun(page: Page): Promise<{ name: string; runId: string }> {
  const { name, meshId } = await importFailingMesh(page, 'e2e-day');
  const runId = await startRun(page, meshId, 'a b');
  await expect
    .poll(async () => {
      const res = await page.request.get(`/api/trpc/runs.get?input=${encodeURIComponent(JSON.stringify({ json: { runId } }))}`);
      return ((await res.json()) as { result?: { data: { json: { status: string } } } }).result?.data.json.status;
    }, { timeout: 30_000 })
    .toBe('failed');
  return { name, runId };
}

for (const [zone, label] of [
  ['America/New_York', 'America/New_York, UTC−05:00'],
  ['Asia/Tokyo', 'Asia/Tokyo, UTC+09:00'],
] as const) {
  test.describe(`viewer in ${zone}`, () => {
    test.use({ timezoneId: zone });

    test(`"what broke today?" counts the viewer's day in ${zone} and names the zone`, async ({ page }) => {
      await signIn(page);
      const { name, runId } = await failedRun(page);

      await page.goto('/runs?range=today');
      await expect(page.getByTestId(`run-row-${runId}`)).toBeVisible();

      await page.getByTestId('assistant-toggle').click();
      await page.getByTestId('assistant-input').fill('What broke today?');
      await page.getByTestId('assistant-send').click();
      const answer = page.getByTestId('assistant-answer').last();
      await expect(answer).toContainText(`failed or stalled today (${label})`);
      await expect(answer).toContainText(`- ${name}: 1 run step_code_failed at cut`);
    });
  });
}
