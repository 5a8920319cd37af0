/**
 * Refreshes the screenshots under docs/ (the canvas, a run page with its timeline, the Runs tab):
 * `TRELLIS_SCREENSHOTS=1 npm run e2e -w @trellis/e2e -- docs/screenshots.spec.ts`. A tool, not a
 * test: it is skipped unless TRELLIS_SCREENSHOTS is set. The run it pictures is a real word-split
 * run, waited for until done.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test } from '@playwright/test';
import { startRun } from '../support/api';
import { signIn } from '../support/session';

const DOCS = fileURLToPath(new URL('../../docs/', import.meta.url));

test.skip(!process.env.TRELLIS_SCREENSHOTS, 'refreshes docs/*.png only when TRELLIS_SCREENSHOTS is set');

test('the canvas, a run page with its timeline, and the Runs tab, as docs/*.png', async ({ page }) => {
  test.setTimeout(180_000);
  await page.setViewportSize({ width: 1440, height: 900 });
  await signIn(page);

  await page.getByTestId('mesh-link-claims-intake').click();
  await expect(page.getByTestId('mesh-name')).toHaveText('claims-intake');
  await expect(page.locator('.react-flow__node').first()).toBeVisible();
  await page.waitForTimeout(500); // the open-time layout and fit settle
  await page.screenshot({ path: path.join(DOCS, 'canvas.png') });

  await page.goto('/meshes');
  await page.getByTestId('mesh-link-word-split').click();
  await expect(page.getByTestId('mesh-name')).toHaveText('word-split');
  const meshId = decodeURIComponent(new URL(page.url()).pathname.split('/').pop() ?? '');
  const line = Array.from({ length: 50 }, (_, i) => `word${i}`).join(' ');
  const text = Array.from({ length: 4 }, () => Array.from({ length: 10 }, () => line).join('\n')).join('\f');
  const runId = await startRun(page, meshId, text, 'words.txt');
  await page.goto(`/runs/${runId}`);
  await expect(page.getByTestId('run-view')).toHaveAttribute('data-status', 'done', { timeout: 120_000 });
  await expect(page.getByTestId('run-timeline')).toBeVisible();
  await page.setViewportSize({ width: 1440, height: 1000 });
  await page.screenshot({ path: path.join(DOCS, 'run.png') });

  await page.goto('/runs');
  await expect(page.getByTestId(`run-row-${runId}`)).toBeVisible();
  await page.screenshot({ path: path.join(DOCS, 'runs.png') });
});
