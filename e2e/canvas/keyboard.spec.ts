import { expect, test, type Page } from '@playwright/test';
import { openImported } from '../support/mesh-file';
import { signIn } from '../support/session';

/**
 * Finding members by name (Ctrl/Cmd+K) and editing with the keyboard alone: the palette, the
 * canvas and the side panel are reached with Tab, used with Enter, and left with Escape.
 */

/** Presses Tab until `testId` has the focus (at most `max` times); fails when it is never reached. */
async function tabTo(page: Page, testId: string, max = 60): Promise<void> {
  for (let i = 0; i < max; i++) {
    await page.keyboard.press('Tab');
    if (await page.evaluate((id) => document.activeElement?.getAttribute('data-testid') === id, testId)) return;
  }
  throw new Error(`${testId} was not reached with ${max} presses of Tab`);
}

const focusedTestId = (page: Page) => page.evaluate(() => document.activeElement?.getAttribute('data-testid') ?? document.activeElement?.className ?? '');

test('Ctrl+K finds a member by id or label and jumps to it: selected, centred, focused', async ({ page }) => {
  await signIn(page);
  await page.getByTestId('mesh-link-claims-intake').click();
  await expect(page.getByTestId('node-write')).toBeVisible();
  const canvas = await page.getByTestId('canvas').boundingBox();
  if (!canvas) throw new Error('no canvas');

  await page.keyboard.press('Control+k');
  const input = page.getByTestId('member-search-input');
  await expect(input).toBeFocused();
  await input.fill('REC');
  await expect(page.getByTestId('member-hit-records')).toBeVisible();
  await expect(page.getByTestId('member-hit-intake')).toHaveCount(0);
  await input.press('Enter');
  await expect(page.getByTestId('member-search')).toHaveCount(0);
  await expect(page.locator('.react-flow__node.selected')).toHaveAttribute('data-id', 'records');
  await expect(page.getByTestId('member-panel')).toHaveAttribute('data-member', 'records');
  await expect(page.locator('.react-flow__node[data-id="records"]')).toBeFocused();
  await expect.poll(async () => {
    const b = await page.getByTestId('node-records').boundingBox();
    if (!b) return Infinity;
    return Math.hypot(b.x + b.width / 2 - (canvas.x + canvas.width / 2), b.y + b.height / 2 - (canvas.y + canvas.height / 2));
  }, { message: 'records to sit in the middle of the canvas' }).toBeLessThan(12);

  await test.step('Escape closes the search without moving anything', async () => {
    await page.keyboard.press('Meta+k');
    await expect(page.getByTestId('member-search-input')).toBeFocused();
    await page.keyboard.press('Escape');
    await expect(page.getByTestId('member-search')).toHaveCount(0);
    await expect(page.locator('.react-flow__node[data-id="records"]')).toBeFocused();
  });
});

test('keyboard only: add from the palette, edit the settings, leave them, open them again from the canvas', async ({ page }) => {
  await signIn(page);
  const name = `keys-${Date.now().toString(36)}`;
  await openImported(page, {
    name,
    members: [{ id: 'first', kind: 'workflow', head: true, steps: [{ type: 'pass' }] } as never],
    channels: [],
    layout: { first: { x: 0, y: 0 } },
  });
  await expect(page.getByTestId('node-first')).toBeVisible();

  await tabTo(page, 'palette-workflow');
  await page.keyboard.press('Enter');
  await expect(page.locator('.react-flow__node')).toHaveCount(2);
  const added = await page.locator('.react-flow__node.selected').getAttribute('data-id');
  expect(added).not.toBe('first');
  // The new member's settings have the focus: its id is typed in right away.
  await expect(page.getByTestId('member-id')).toBeFocused();
  await page.keyboard.press('Tab');
  await expect(page.getByTestId('member-label')).toBeFocused();
  await page.keyboard.type('Billing');
  await expect(page.getByTestId(`node-${added}`)).toContainText('Billing');

  await test.step('Escape goes back to the member on the canvas; Enter opens its settings again', async () => {
    await page.keyboard.press('Escape');
    await expect(page.locator(`.react-flow__node[data-id="${added}"]`)).toBeFocused();
    await page.keyboard.press('Enter');
    await expect(page.getByTestId('member-id')).toBeFocused();
  });

  await test.step('Tab from the canvas reaches the other member; Enter selects it, Enter again opens it', async () => {
    await page.keyboard.press('Escape');
    await page.keyboard.press('Shift+Tab');
    await expect(page.locator('.react-flow__node[data-id="first"]')).toBeFocused();
    await page.keyboard.press('Enter');
    await expect(page.getByTestId('member-panel')).toHaveAttribute('data-member', 'first');
    await page.keyboard.press('Enter');
    await expect(page.getByTestId('member-id')).toBeFocused();
    expect(await focusedTestId(page)).toBe('member-id');
  });

  await test.step('Escape on the canvas member clears the selection', async () => {
    await page.keyboard.press('Escape');
    await page.keyboard.press('Escape');
    await expect(page.getByTestId('mesh-panel')).toBeVisible();
  });
});
