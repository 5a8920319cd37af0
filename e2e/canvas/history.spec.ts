import { expect, test } from '@playwright/test';
import { settledBox } from '../support/canvas';
import { edgeIds, exported, openImported, threeMembers } from '../support/mesh-file';
import { signIn } from '../support/session';

test('undo brings back a deleted member with its conditioned channels, same ids; redo removes them again', async ({ page }) => {
  const mesh = threeMembers(`undo-${Date.now().toString(36)}`);
  await signIn(page);
  await openImported(page, mesh);
  const before = await exported(page);
  expect(await edgeIds(page)).toEqual(['a->b', 'b->c', 'to-c']);
  const undoButton = page.getByRole('button', { name: 'Undo' });
  const redoButton = page.getByRole('button', { name: 'Redo' });
  await expect(undoButton).toBeDisabled();

  await test.step('delete the head member: its two conditioned channels go with it', async () => {
    await page.getByTestId('node-a').click();
    await page.getByTestId('member-remove').click();
    await expect(page.getByTestId('node-a')).toHaveCount(0);
    expect(await edgeIds(page)).toEqual(['b->c']);
    await expect(page.getByTestId('mesh-dirty')).toBeVisible();
  });

  await test.step('Ctrl+Z restores the member, channel ids, conditions, handles and position', async () => {
    await page.keyboard.press('Control+z');
    await expect(page.getByTestId('node-a')).toBeVisible();
    expect(await edgeIds(page)).toEqual(['a->b', 'b->c', 'to-c']);
    expect(await exported(page)).toEqual(before);
    // React Flow draws an edge only when both of its handles are found on the nodes.
    await expect(page.locator('.react-flow__edge[data-id="to-c"] path.react-flow__edge-path')).toHaveCount(1);
    await expect(page.getByTestId('mesh-clean')).toBeVisible();
  });

  await test.step('Shift+Ctrl+Z and the Redo button remove them again; Ctrl+Y redoes too', async () => {
    await page.keyboard.press('Shift+Control+z');
    await expect(page.getByTestId('node-a')).toHaveCount(0);
    expect(await edgeIds(page)).toEqual(['b->c']);
    await undoButton.click();
    await expect(page.getByTestId('node-a')).toBeVisible();
    await redoButton.click();
    await expect(page.getByTestId('node-a')).toHaveCount(0);
    await undoButton.click();
    await page.keyboard.press('Control+y');
    await expect(page.getByTestId('node-a')).toHaveCount(0);
    await expect(redoButton).toBeDisabled();
    await undoButton.click();
    expect(await exported(page)).toEqual(before);
  });

  await test.step('a condition edit is one undo step, and Ctrl+Z in a text field is not the canvas undo', async () => {
    await page.getByTestId('edge-label-a-b').click();
    const when = page.getByTestId('channel-when');
    await expect(when).toHaveValue('x > 1');
    await when.fill('x > 2');
    await page.getByTestId('node-b').click();
    await page.getByTestId('member-label').click();
    await page.keyboard.press('Control+z');
    expect((await exported(page)).channels[0]?.when).toBe('x > 2');
    await undoButton.click();
    expect(await exported(page)).toEqual(before);
  });
});

test('a multi-select move is one undo step, however many pixels the drag took', async ({ page }) => {
  const mesh = threeMembers(`move-${Date.now().toString(36)}`);
  await signIn(page);
  await openImported(page, mesh);
  const before = await exported(page);

  await page.getByTestId('node-a').click();
  await page.getByTestId('node-b').click({ modifiers: ['Control'] });
  await expect(page.locator('.react-flow__node.selected')).toHaveCount(2);
  const box = await settledBox(page.getByTestId('node-a'));
  await page.mouse.move(box.x + box.width / 2, box.y + 10);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width / 2 + 120, box.y + 70, { steps: 15 });
  await page.mouse.up();

  const after = await exported(page);
  for (const id of ['a', 'b']) {
    expect(after.layout?.[id]?.x).toBeGreaterThan((before.layout?.[id]?.x ?? 0) + 40);
  }
  expect(after.layout?.c).toEqual(before.layout?.c);

  await page.getByRole('button', { name: 'Undo' }).click();
  expect(await exported(page)).toEqual(before);
  await expect(page.getByRole('button', { name: 'Undo' })).toBeDisabled();
  await page.getByRole('button', { name: 'Redo' }).click();
  expect(await exported(page)).toEqual(after);
});
