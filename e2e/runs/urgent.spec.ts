/**
 * Marking runs urgent: the run page states the admission verdict and offers "Mark urgent" behind a
 * confirmation (Escape keeps the run normal), then shows the Urgent badge; the Runs tab states each
 * run's verdict, lets an operator select open runs and mark them urgent in one go (an ended run in
 * the selection comes back refused, with the reason; the dialog passes the axe check); a viewer
 * sees neither control. The same confirmation cancels a run, with a reason.
 * Screenshots of the run page's header and of the Runs tab go to $E2E_SHOTS when set, else to the
 * test's output folder.
 */
import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { seriousViolations } from '../support/a11y';
import { queryText, personWithRole } from '../support/admin';
import { importFailingMesh, importMesh, startRun } from '../support/api';
import { signIn } from '../support/session';

/** A verdict sentence as engine runs/admission.ts words it (ran at once, waits, or waited). */
const VERDICT = /^(Runs now: |Waits for |Waited )/;

/** Imports a mesh whose second member waits for a person's approval, so its runs stay open. */
async function importWaitingMesh(page: Page): Promise<string> {
  return importMesh(page, {
    format: 'trellis.mesh/v1',
    name: `e2e-urgent-${Date.now().toString(36)}`,
    members: [
      { id: 'head', kind: 'workflow', head: true, steps: [{ type: 'pass' }] },
      { id: 'review', kind: 'workflow', label: 'Review', approval: 'required', steps: [{ type: 'pass' }] },
    ],
    channels: [{ from: 'head', to: 'review' }],
  });
}

function shot(name: string): string {
  return path.join(process.env.E2E_SHOTS ?? test.info().outputPath(), name);
}

test('runs are marked urgent from the run page and in bulk from the Runs tab; viewers see no such control', async ({ page }) => {
  test.setTimeout(240_000);
  await page.setViewportSize({ width: 1280, height: 900 });
  await signIn(page);
  const meshId = await importWaitingMesh(page);
  const [one, two, three] = [await startRun(page, meshId, 'first'), await startRun(page, meshId, 'second'), await startRun(page, meshId, 'third')];
  const { meshId: failingMesh } = await importFailingMesh(page, 'e2e-urgent-fail');
  const failed = await startRun(page, failingMesh, 'fails');

  await test.step('a viewer sees the verdict but no Mark urgent control, on the run page or the Runs tab', async () => {
    const viewer = await personWithRole(page, 'viewer');
    await viewer.goto(`/runs/${two}`);
    await expect(viewer.getByTestId('run-admission')).toHaveText(VERDICT);
    await expect(viewer.getByTestId('run-urgent')).toHaveCount(0);
    await expect(viewer.getByTestId('run-urgent-badge')).toHaveCount(0);
    await viewer.goto('/runs');
    const row = viewer.getByTestId(`run-row-${two}`);
    await expect(row.getByTestId('run-admission-text')).toHaveText(VERDICT);
    await expect(viewer.getByTestId('runs-urgent')).toHaveCount(0);
    await expect(row.getByTestId('run-select')).toHaveCount(0);
    await viewer.context().close();
  });

  await test.step('the run page: the verdict, the button, a confirmation that Escape cancels, then the badge', async () => {
    await page.goto(`/runs/${one}`);
    await expect(page.getByTestId('run-admission')).toHaveText(VERDICT);
    const button = page.getByTestId('run-urgent');
    await expect(button).toBeVisible();
    await page.getByTestId('run-view').locator('header').screenshot({ path: shot('run-page-urgent.png') });

    await button.click();
    const dialog = page.getByRole('alertdialog', { name: 'Mark this run urgent?' });
    await expect(dialog).toBeVisible();
    await expect(dialog).toHaveAccessibleDescription(/waiting messages go first on every pool/);
    await expect(dialog.getByTestId('run-urgent-no')).toBeFocused();
    await page.screenshot({ path: shot('run-page-urgent-dialog.png') });
    await page.keyboard.press('Escape');
    await expect(dialog).toHaveCount(0);
    await expect(button).toBeFocused();
    expect(await queryText(page, 'runs.get', { runId: one })).toContain('"urgent":false');

    await button.click();
    await page.getByTestId('run-urgent-yes').click();
    await expect(page.getByTestId('run-urgent-badge')).toHaveText('Urgent');
    await expect(page.getByTestId('run-urgent')).toHaveCount(0);
    expect(await queryText(page, 'runs.get', { runId: one })).toContain('"urgent":true');
  });

  await test.step('the Runs tab: two open runs and a failed one selected, the open two marked in one go', async () => {
    await page.goto('/runs');
    const row = (id: string) => page.getByTestId(`run-row-${id}`);
    await expect(row(failed)).toHaveAttribute('data-status', 'failed', { timeout: 30_000 });
    await expect(row(one).getByTestId('run-urgent-badge')).toBeVisible();
    for (const id of [two, three]) {
      await expect(row(id).getByTestId('run-admission-text')).toHaveText(VERDICT);
      await expect(row(id).getByTestId('run-urgent-badge')).toHaveCount(0);
    }
    for (const id of [two, three, failed]) await row(id).getByTestId('run-select').check();
    await expect(page.getByTestId('runs-selected')).toHaveText('3 selected');

    await page.getByTestId('runs-urgent').click();
    const dialog = page.getByRole('alertdialog', { name: 'Mark 3 runs urgent?' });
    await expect(dialog).toContainText('Their waiting messages go first on every pool');
    await expect(dialog).toContainText('1 of them has already ended, so it will be refused.');
    await page.screenshot({ path: shot('runs-tab-urgent-dialog.png') });
    expect(await seriousViolations(page, '[data-testid="runs-urgent-confirm"]')).toEqual([]);
    await dialog.getByTestId('runs-urgent-yes').click();
    await expect(dialog).toHaveCount(0);
    await expect(page.getByTestId('runs-notice')).toContainText('Marked urgent: 2 runs; 1 refused.');
    await expect(page.getByTestId('runs-notice-refused')).toContainText('it has already ended (failed)');
    for (const id of [two, three]) await expect(row(id).getByTestId('run-urgent-badge')).toHaveText('Urgent');
    await expect(row(failed).getByTestId('run-urgent-badge')).toHaveCount(0);
    await expect(page.getByTestId('runs-selected')).toHaveCount(0);
    await page.getByTestId('runs-table-frame').screenshot({ path: shot('runs-tab-urgent.png') });
  });

  await test.step('the same confirmation cancels a run: focus in its reason field, the reason kept', async () => {
    await page.goto(`/runs/${three}`);
    await page.getByTestId('run-cancel').click();
    const dialog = page.getByRole('alertdialog', { name: 'Cancel this run?' });
    await expect(dialog.getByTestId('run-cancel-reason')).toBeFocused();
    await page.keyboard.type('not needed after all');
    await dialog.getByTestId('run-cancel-yes').click();
    await expect(page.getByTestId('run-status')).toHaveText('cancelled', { timeout: 30_000 });
    await expect(page.getByTestId('run-cause')).toContainText('not needed after all');
  });
});
