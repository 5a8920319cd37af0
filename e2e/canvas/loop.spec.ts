import { expect, test } from '@playwright/test';
import { connect } from '../support/canvas';
import { signIn } from '../support/session';

// Click-to-add names members `<kind>-<n>`; the first one added is the head.
const [A, B, C] = ['workflow-1', 'workflow-2', 'workflow-3'] as const;

test('a loop drawn on the canvas is flagged, and removing its channel clears it', async ({ page }) => {
  const name = `loop-${Date.now().toString(36)}`;
  const findings = page.getByTestId('findings-panel');

  await test.step('sign in and create an empty mesh', async () => {
    await signIn(page);
    await page.getByTestId('mesh-new').click();
    await page.getByTestId('mesh-new-name').fill(name);
    await page.getByTestId('mesh-new-create').click();
    await expect(page).toHaveURL(/\/meshes\/[^/]+$/);
    await expect(page.getByTestId('mesh-name')).toHaveText(name);
    await expect(page.getByTestId('mesh-version')).toHaveText('v1');
    await expect(page.getByTestId('canvas-empty')).toBeVisible();
  });

  await test.step('add three workflow members from the palette', async () => {
    for (const id of [A, B, C]) {
      await page.getByTestId('palette-workflow').click();
      await expect(page.getByTestId(`node-${id}`)).toBeVisible();
    }
    await expect(page.locator('[data-testid^="node-"][data-kind]')).toHaveCount(3);
    await expect(page.getByTestId('mesh-dirty')).toBeVisible();
  });

  await test.step('make the first member the head', async () => {
    await page.getByTestId(`node-${A}`).click();
    const panel = page.getByTestId('member-panel');
    await expect(panel).toHaveAttribute('data-member', A);
    await expect(page.getByTestId('member-id')).toHaveValue(A);
    await page.getByTestId('member-head').check();
    await expect(page.getByTestId('member-head')).toBeChecked();
    await expect(page.getByTestId(`node-${A}-head`)).toBeVisible();
    await expect(page.getByTestId(`node-${B}-head`)).toHaveCount(0);
    await expect(page.getByTestId(`node-${C}-head`)).toHaveCount(0);
    // Nothing connects the others to the head yet.
    await expect(findings.getByTestId('finding-orphan')).toHaveCount(2);
  });

  await test.step('connect a→b and b→c: a valid chain', async () => {
    await connect(page, A, B);
    await connect(page, B, C);
    await expect(findings.getByTestId('findings-none')).toBeVisible();
  });

  await test.step('connect c→b and see the loop', async () => {
    await connect(page, C, B);
    const loop = findings.getByTestId('finding-loop');
    await expect(loop).toHaveCount(1);
    await expect(loop).toHaveAttribute('data-severity', 'error');
    // The finding names one channel on the loop and the member it leaves from.
    const member = await loop.getAttribute('data-member');
    const channel = await loop.getAttribute('data-channel');
    expect([A, B, C]).toContain(member);
    expect([`${B}->${C}`, `${C}->${B}`]).toContain(channel);
    await expect(page.getByTestId(`node-${member}-finding`)).toBeVisible();
    await expect(page.getByTestId(`node-${member}`)).toHaveAttribute('data-severity', 'error');
    const [from, to] = (channel ?? '').split('->');
    await expect(page.getByTestId(`edge-label-${from}-${to}`)).toHaveAttribute('data-severity', 'error');
    await expect(findings.getByTestId('findings-none')).toHaveCount(0);
  });

  await test.step('remove the c→b channel', async () => {
    // A channel just drawn is selected, so its settings are in the side panel.
    const panel = page.getByTestId('channel-panel');
    await expect(panel).toHaveAttribute('data-channel', `${C}->${B}`);
    await page.getByTestId('channel-remove').click();
    await expect(page.getByTestId(`edge-${C}-${B}`)).toHaveCount(0);
    await expect(page.getByTestId(`edge-${A}-${B}`)).toHaveCount(1);
    await expect(page.getByTestId(`edge-${B}-${C}`)).toHaveCount(1);
  });

  await test.step('the loop is gone and the mesh is valid', async () => {
    await expect(findings.getByTestId('finding-loop')).toHaveCount(0);
    await expect(findings.getByTestId('findings-none')).toBeVisible();
    await expect(findings.locator('[data-severity="error"]')).toHaveCount(0);
    for (const id of [A, B, C]) await expect(page.getByTestId(`node-${id}-finding`)).toHaveCount(0);
  });

  await test.step('save: the version goes up', async () => {
    await expect(page.getByTestId('mesh-version')).toHaveText('v1');
    await page.getByTestId('mesh-save').click();
    await expect(page.getByTestId('save-ok')).toContainText('Saved as version 2.');
    await expect(page.getByTestId('mesh-version')).toHaveText('v2');
    await expect(page.getByTestId('mesh-clean')).toBeVisible();
    await expect(page.getByTestId('mesh-save')).toBeDisabled();
  });

  await test.step('the saved version is what comes back', async () => {
    await page.reload();
    await expect(page.getByTestId('mesh-version')).toHaveText('v2');
    await expect(page.getByTestId(`node-${A}-head`)).toBeVisible();
    await expect(page.getByTestId(`edge-${A}-${B}`)).toHaveCount(1);
    await expect(page.getByTestId(`edge-${B}-${C}`)).toHaveCount(1);
    await expect(page.getByTestId(`edge-${C}-${B}`)).toHaveCount(0);
    await expect(findings.getByTestId('findings-none')).toBeVisible();
  });
});
