/**
 * A failed run appears in the exceptions feed and in the Action Center while both pages are open,
 * without a reload: the engine records the failure, publishes it on Redis pub/sub, and the pages
 * refetch when the Server-Sent Event arrives.
 */
import { expect, test } from '@playwright/test';
import { signIn } from '../support/session';
import { importFailingMesh, startRun } from '../support/api';

test('a failed run shows up in the feed and the Action Center without reload', async ({ page, context }) => {
  await signIn(page, '/actions');
  const { name, meshId } = await importFailingMesh(page, 'e2e-failing');

  const feed = await context.newPage();
  await feed.goto('/exceptions');
  await expect(feed.getByTestId('exceptions-feed')).toBeVisible();
  await expect(page.getByTestId('action-center')).toBeVisible();
  // Both pages hold a live stream before anything fails.
  await expect(page.getByTestId('live-status')).toHaveAttribute('data-state', 'live');
  await expect(feed.getByTestId('live-status')).toHaveAttribute('data-state', 'live');
  await expect(feed.locator(`[data-testid="feed-group"][data-mesh="${name}"]`)).toHaveCount(0);
  await expect(page.locator(`[data-testid="action-item"][data-mesh="${name}"]`)).toHaveCount(0);
  const navigations: string[] = [];
  for (const p of [page, feed]) p.on('framenavigated', (f) => { if (f === p.mainFrame()) navigations.push(f.url()); });

  const runId = await startRun(page, meshId, 'some words here');

  // The feed has no polling at all, and the Action Center none under 30 s: only the live event can bring these in.
  const item = page.locator(`[data-testid="action-item"][data-mesh="${name}"]`);
  await expect(item).toBeVisible({ timeout: 25_000 });
  await expect(item).toHaveAttribute('data-cause', 'step_code_failed');
  await expect(item.getByTestId('action-item-sentence')).toContainText('Cut words');
  await expect(item.locator(`[data-testid="action-item-run"][data-run="${runId}"]`)).toBeVisible();

  const group = feed.locator(`[data-testid="feed-group"][data-mesh="${name}"]`);
  await expect(group).toBeVisible({ timeout: 25_000 });
  await expect(group).toHaveAttribute('data-cause', 'step_code_failed');
  await expect(group.getByTestId('feed-count')).toHaveText('1');
  await expect(group.getByTestId('feed-sentence')).toHaveText('1 run failed in step code at Cut words.');
  await expect(group.getByTestId('feed-sample')).toHaveCount(1);
  expect(navigations).toEqual([]);

  // Acting on the item is recorded with who did it.
  await item.getByTestId('action-acknowledge').click();
  await expect(item.getByTestId('action-item-state')).toHaveText('acknowledged');
  await item.getByTestId('action-comment').fill('field name fixed in v2');
  await item.getByTestId('action-resolve').click();
  await expect(item).toHaveCount(0);
  await page.getByTestId('actions-filter-state').selectOption('resolved');
  const resolved = page.locator(`[data-testid="action-item"][data-mesh="${name}"]`);
  await expect(resolved).toHaveAttribute('data-state', 'resolved');
  await resolved.locator('summary').click();
  await expect(resolved.getByTestId('action-history')).toContainText('resolved: field name fixed in v2');

  // The Runs tab finds it by cause and by severity, and offers it for bulk re-open.
  await page.getByTestId('nav-runs').click();
  await page.getByTestId('runs-filter-cause').selectOption('step_code_failed');
  const row = page.getByTestId(`run-row-${runId}`);
  await expect(row).toBeVisible();
  await page.getByTestId('runs-filter-cause').selectOption('');
  await page.getByTestId('runs-filter-severity').selectOption('critical');
  await expect(page.getByTestId('run-list-empty')).toBeVisible();
  await page.getByTestId('runs-filter-severity').selectOption('project');
  await expect(row).toBeVisible();
  await page.getByTestId('runs-search').fill(runId.slice(0, 13));
  await expect(page.locator('[data-testid^="run-row-"]')).toHaveCount(1);
  await row.getByTestId('run-select').check();
  await expect(page.getByTestId('runs-selected')).toHaveText('1 selected');
  await page.getByTestId('runs-reopen').click();
  await expect(page.getByTestId('reopen-confirm')).toBeVisible();
});
