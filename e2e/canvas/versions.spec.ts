import { expect, test } from '@playwright/test';
import { openImported, threeMembers } from '../support/mesh-file';
import { signIn } from '../support/session';

test('version history: saved versions with who and when, a diff drawn on the canvas, restore as a new version', async ({ page }) => {
  const mesh = threeMembers(`versions-${Date.now().toString(36)}`);
  await signIn(page);
  const meshId = await openImported(page, mesh);

  await test.step('save twice: v2 without c, v3 with b changed and d added after it', async () => {
    await page.getByTestId('node-c').click();
    await page.getByTestId('member-remove').click();
    await page.getByTestId('mesh-save').click();
    await expect(page.getByTestId('mesh-version')).toHaveText('v2');
    const v3 = {
      format: 'trellis.mesh/v1',
      name: mesh.name,
      members: [
        { id: 'a', kind: 'workflow', head: true, steps: [{ type: 'pass' }] },
        { id: 'b', kind: 'workflow', steps: [{ type: 'split', by: 'word' }] },
        { id: 'd', kind: 'workflow', steps: [{ type: 'pass' }] },
      ],
      channels: [{ from: 'a', to: 'b', when: 'x > 2' }, { from: 'b', to: 'd' }],
      layout: { a: { x: 0, y: 0 }, b: { x: -150, y: 200 }, d: { x: -150, y: 400 } },
    };
    await page.getByTestId('mesh-import-canvas-file').setInputFiles({ name: 'v3.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(v3)) });
    await expect(page.getByTestId('node-d')).toBeVisible();
    await page.getByTestId('mesh-save').click();
    await expect(page.getByTestId('mesh-version')).toHaveText('v3');
    await expect(page.getByTestId('mesh-clean')).toBeVisible();
  });

  await test.step('the history lists v3, v2, v1, each saved by the admin', async () => {
    await page.getByTestId('mesh-history').click();
    await expect(page).toHaveURL((u) => u.pathname === `/meshes/${meshId}/versions`);
    const items = page.getByTestId('version-list').locator('li');
    await expect(items).toHaveCount(3);
    expect(await items.evaluateAll((els) => els.map((e) => e.getAttribute('data-testid')))).toEqual(['version-3', 'version-2', 'version-1']);
    for (const v of [1, 2, 3]) await expect(page.getByTestId(`version-${v}`).getByTestId('version-by')).toHaveText('Administrator');
    await expect(page.getByTestId('version-3')).toContainText('3 members, 2 channels');
  });

  await test.step('open v1 read-only: all three members, nothing to drag or edit', async () => {
    await page.getByTestId('version-1').getByTestId('version-open').click();
    await expect(page.getByTestId('history-shown')).toContainText('v1');
    const canvas = page.getByTestId('version-canvas');
    for (const id of ['a', 'b', 'c']) await expect(canvas.getByTestId(`node-${id}`)).toBeVisible();
    await expect(canvas.locator('.react-flow__node.draggable')).toHaveCount(0);
  });

  await test.step('v1 → v3: added, removed and changed members and channels, coloured on the canvas and listed', async () => {
    await page.getByTestId('compare-from').selectOption('1');
    await page.getByTestId('compare-to').selectOption('3');
    await page.getByTestId('compare-go').click();
    await expect(page).toHaveURL(/from=1&to=3/);
    const canvas = page.getByTestId('diff-canvas');
    await expect(canvas.locator('.react-flow__node.diff-added[data-id="d"]')).toBeVisible();
    await expect(canvas.locator('.react-flow__node.diff-removed[data-id="c"]')).toBeVisible();
    await expect(canvas.locator('.react-flow__node.diff-changed[data-id="b"]')).toBeVisible();
    await expect(canvas.locator('.react-flow__node[data-id="a"]')).not.toHaveClass(/diff-/);
    await expect(canvas.locator('.react-flow__edge.diff-added[data-id="b->d"]')).toHaveCount(1);
    await expect(canvas.locator('.react-flow__edge.diff-removed[data-id="to-c"]')).toHaveCount(1);
    await expect(canvas.locator('.react-flow__edge.diff-removed[data-id="b->c"]')).toHaveCount(1);
    await expect(canvas.locator('.react-flow__edge.diff-changed[data-id="a->b"]')).toHaveCount(1);
    // The colour is really drawn: an added channel's stroke is green, a removed one's is dashed.
    const stroke = await canvas.locator('.react-flow__edge.diff-added path.react-flow__edge-path').first().evaluate((p) => getComputedStyle(p).stroke);
    expect(stroke).toBe('rgb(22, 163, 74)');
    const dash = await canvas.locator('.react-flow__edge.diff-removed path.react-flow__edge-path').first().evaluate((p) => getComputedStyle(p).strokeDasharray);
    expect(dash).not.toBe('none');
    const list = page.getByTestId('diff-list');
    await expect(list).toHaveAttribute('data-total', '7');
    await expect(list.getByTestId('diff-added-member-d')).toBeVisible();
    await expect(list.getByTestId('diff-removed-member-c')).toBeVisible();
    await expect(list.getByTestId('diff-changed-member-b')).toContainText('steps');
    await expect(list.getByTestId('diff-changed-channel-a->b')).toContainText('when');
  });

  await test.step('restore v1 as v4: the editor opens on v4 with c back', async () => {
    await page.getByTestId('version-1').getByTestId('version-restore').click();
    await expect(page.getByTestId('history-note')).toHaveText('Restored v1 as v4.');
    await expect(page.getByTestId('version-list').locator('li').first()).toHaveAttribute('data-testid', 'version-4');
    await expect(page.getByTestId('history-shown')).toHaveText('Changes from v1 to v4');
    await expect(page.getByTestId('diff-list')).toHaveAttribute('data-total', '0');
    await page.getByTestId('history-back').click();
    await expect(page.getByTestId('mesh-version')).toHaveText('v4');
    for (const id of ['a', 'b', 'c']) await expect(page.getByTestId(`node-${id}`)).toBeVisible();
    await expect(page.getByTestId('node-d')).toHaveCount(0);
  });
});
