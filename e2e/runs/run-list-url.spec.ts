/**
 * The Runs tab keeps its view in the URL: filters, search, sort and page chosen on the page are in the
 * query string, and a reload, Back from a run page and the same link opened in another tab show the
 * same runs with the same controls set. The Action Center's Show filter does the same.
 */
import { expect, test, type Page } from '@playwright/test';
import { signIn } from '../support/session';
import { importFailingMesh, startRun } from '../support/api';

const RUNS = 27;

async function expectView(page: Page, meshId: string) {
  await expect(page.getByTestId('runs-filter-mesh')).toHaveValue(meshId);
  await expect(page.getByTestId('runs-filter-status')).toHaveValue('failed');
  await expect(page.getByTestId('runs-filter-cause')).toHaveValue('step_code_failed');
  await expect(page.getByTestId('runs-search')).toHaveValue('');
  await expect(page.getByTestId('runs-sort-started')).toHaveText('Started ↑');
  await expect(page.getByTestId('runs-pager')).toContainText(`26–27 of ${RUNS}`);
  await expect(page.locator('[data-testid^="run-row-"]')).toHaveCount(2);
}

test('filters, sort and page of the Runs tab survive a reload, Back and a shared link', async ({ page, context }) => {
  await signIn(page);
  const { meshId } = await importFailingMesh(page, 'e2e-url');
  const ids: string[] = [];
  for (let i = 0; i < RUNS; i++) ids.push(await startRun(page, meshId, `words ${i}`, `doc-${String(i).padStart(2, '0')}.txt`));

  await page.goto('/runs');
  await page.getByTestId('runs-filter-mesh').selectOption(meshId);
  await page.getByTestId('runs-filter-status').selectOption('failed');
  // Every run fails at the same member; wait until all of them have.
  await expect(page.getByTestId('runs-pager')).toContainText(`1–25 of ${RUNS}`, { timeout: 60_000 });
  await page.getByTestId('runs-filter-cause').selectOption('step_code_failed');
  await page.getByTestId('runs-sort-started').click();
  await expect(page.getByTestId('runs-sort-started')).toHaveText('Started ↑');
  await page.getByTestId('runs-pager-next').click();
  await expect(page).toHaveURL(
    (url) =>
      url.pathname === '/runs' &&
      url.searchParams.get('mesh') === meshId &&
      url.searchParams.get('status') === 'failed' &&
      url.searchParams.get('cause') === 'step_code_failed' &&
      url.searchParams.get('dir') === 'asc' &&
      url.searchParams.get('page') === '2',
  );
  await expectView(page, meshId);
  // Oldest first: page 2 holds the last two runs started.
  await expect(page.getByTestId(`run-row-${ids[RUNS - 1] ?? ''}`)).toBeVisible();
  const shared = page.url();
  await page.screenshot({ path: test.info().outputPath('runs-filtered.png'), fullPage: true });

  await page.reload();
  await expectView(page, meshId);

  await page.getByTestId(`run-row-${ids[RUNS - 1] ?? ''}`).getByTestId('run-link').click();
  await expect(page.getByTestId('run-view')).toBeVisible();
  await page.goBack();
  await expect(page).toHaveURL(shared);
  await expectView(page, meshId);

  const other = await context.newPage();
  await other.goto(shared);
  await expectView(other, meshId);

  // A search narrows within the view and goes into the link too; clearing it leaves the other filters.
  await page.getByTestId('runs-search').fill(ids[0] ?? '');
  await expect(page.locator('[data-testid^="run-row-"]')).toHaveCount(1);
  await expect(page).toHaveURL((url) => url.searchParams.get('q') === ids[0] && !url.searchParams.has('page'));
  await page.reload();
  await expect(page.getByTestId('runs-search')).toHaveValue(ids[0] ?? '');
  await expect(page.getByTestId(`run-row-${ids[0] ?? ''}`)).toBeVisible();
  await page.getByTestId('runs-search').fill('');
  await expect(page).toHaveURL((url) => !url.searchParams.has('q') && url.searchParams.get('mesh') === meshId);
});

test('the Action Center keeps which items it shows in the URL', async ({ page }) => {
  await signIn(page, '/actions');
  await page.getByTestId('actions-filter-state').selectOption('all');
  await expect(page).toHaveURL((url) => url.searchParams.get('show') === 'all');
  await page.reload();
  await expect(page.getByTestId('actions-filter-state')).toHaveValue('all');
  await page.getByTestId('actions-filter-state').selectOption('active');
  await expect(page).toHaveURL((url) => url.pathname === '/actions' && url.search === '');
});
