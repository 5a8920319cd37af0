/**
 * A member marked `approval: required` parks its output; a person approves it in the Action Center
 * and the run goes on to end `done` with the parked output.
 */
import { expect, test } from '@playwright/test';
import { signIn } from '../support/session';
import { importMesh, startRun } from '../support/api';

test('an approval granted from the Action Center lets the run end done', async ({ page }) => {
  await signIn(page, '/actions');
  const name = `e2e-approval-${Date.now().toString(36)}`;
  const meshId = await importMesh(page, {
    format: 'trellis.mesh/v1',
    name,
    members: [
      { id: 'head', kind: 'workflow', head: true, steps: [{ type: 'pass' }] },
      { id: 'review', kind: 'workflow', label: 'Review', approval: 'required', steps: [{ type: 'pass' }] },
      { id: 'publish', kind: 'workflow', steps: [{ type: 'pass' }] },
    ],
    channels: [{ from: 'head', to: 'review' }, { from: 'review', to: 'publish' }],
  });
  await expect(page.getByTestId('live-status')).toHaveAttribute('data-state', 'live');
  const runId = await startRun(page, meshId, 'approve this text', 'claim.txt');

  const item = page.locator(`[data-testid="action-item"][data-kind="approval"][data-mesh="${name}"]`);
  await expect(item).toBeVisible({ timeout: 25_000 });
  await expect(item.getByTestId('approval-box')).toHaveAttribute('data-status', 'pending');
  await expect(item.getByTestId('approval-preview')).toContainText('approve this text');
  await expect(item.locator(`[data-testid="action-item-run"][data-run="${runId}"]`)).toBeVisible();

  await item.getByTestId('action-comment').fill('checked');
  await item.getByTestId('approval-approve').click();
  await expect(item).toHaveCount(0);

  await page.getByTestId('actions-filter-state').selectOption('resolved');
  const decided = page.locator(`[data-testid="action-item"][data-kind="approval"][data-mesh="${name}"]`);
  await expect(decided.getByTestId('approval-box')).toHaveAttribute('data-status', 'approved');
  await expect(decided.getByTestId('approval-box')).toContainText('approved by');

  await page.goto(`/runs/${runId}`);
  await expect(page.getByTestId('run-status')).toHaveText('done', { timeout: 30_000 });
});
