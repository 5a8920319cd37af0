/**
 * The Runs tab at 1280 px and narrower: every column (dead and lost included) is in view without
 * scrolling sideways; a run's full id is copied by its copy button; the run page pluralises counts.
 */
import { expect, test } from '@playwright/test';
import { importFailingMesh, startRun } from '../support/api';
import { signIn } from '../support/session';

test('the Runs table fits 1280 and 1024 px, ids copy in full, counts are pluralised', async ({ page, context }) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  await page.setViewportSize({ width: 1280, height: 900 });
  await signIn(page);
  const { meshId } = await importFailingMesh(page, 'e2e-table');
  const runId = await startRun(page, meshId, 'a b', 'a-rather-long-input-file-name-for-the-table.txt');
  await page.goto('/runs');
  const row = page.getByTestId(`run-row-${runId}`);
  await expect(row).toHaveAttribute('data-status', 'failed', { timeout: 30_000 });

  for (const width of [1280, 1024]) {
    await test.step(`at ${width} px nothing is cut off`, async () => {
      await page.setViewportSize({ width, height: 900 });
      const frame = page.getByTestId('runs-table-frame');
      const { scroll, client } = await frame.evaluate((el) => ({ scroll: el.scrollWidth, client: el.clientWidth }));
      expect(scroll, `table ${scroll} px wide in a frame of ${client} px`).toBeLessThanOrEqual(client);
      for (const header of ['Dead', 'Lost']) {
        const box = await page.getByRole('columnheader', { name: header, exact: true }).boundingBox();
        expect(box).not.toBeNull();
        expect((box?.x ?? 0) + (box?.width ?? 0)).toBeLessThanOrEqual(width);
      }
    });
  }

  await test.step('the copy button copies the full run id', async () => {
    await row.getByTestId('copy-id').click();
    await expect(row.getByTestId('copy-id')).toHaveText('copied');
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(runId);
  });

  await test.step('the run page says "1 message" and copies the id too, with no stack frame in the sentence', async () => {
    await row.getByTestId('run-link').click();
    await expect(page.getByTestId('run-view')).toHaveAttribute('data-status', 'failed');
    await expect(page.getByTestId('run-id')).toHaveText(runId);
    const progress = page.getByTestId('run-progress-text');
    const published = Number(await page.getByTestId('run-progress').getAttribute('data-published'));
    await expect(progress).toHaveText(new RegExp(`of ${published} ${published === 1 ? 'message' : 'messages'} done$`));
    await expect(page.getByTestId('run-cause')).not.toHaveText(/\bat\s+\S*:\d+:\d+/);
    await page.getByTestId('run-view').getByTestId('copy-id').first().click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(runId);
  });
});
