import { expect, test, type Page } from '@playwright/test';
import { openImported, threeMembers } from '../support/mesh-file';
import { signIn } from '../support/session';

async function addMember(page: Page): Promise<void> {
  await page.getByTestId('palette-workflow').click();
  await expect(page.getByTestId('node-workflow-1')).toBeVisible();
  await expect(page.getByTestId('mesh-dirty')).toBeVisible();
}

test('unsaved edits ask before a link or Back leaves the editor; stay, leave and save-and-leave', async ({ page }) => {
  const mesh = threeMembers(`leave-${Date.now().toString(36)}`);
  await signIn(page);
  await openImported(page, mesh);
  const editorUrl = page.url();
  const prompt = page.getByTestId('leave-prompt');

  await test.step('a link asks; Stay keeps the canvas and its edits', async () => {
    await addMember(page);
    await page.getByTestId('nav-runs').click();
    await expect(prompt).toBeVisible();
    await expect(prompt).toHaveAttribute('data-leave', 'link');
    await page.getByTestId('leave-stay').click();
    await expect(prompt).toHaveCount(0);
    expect(page.url()).toBe(editorUrl);
    await expect(page.getByTestId('node-workflow-1')).toBeVisible();
  });

  await test.step('Back asks; Stay keeps the canvas', async () => {
    await page.goBack();
    await expect(prompt).toBeVisible();
    await expect(prompt).toHaveAttribute('data-leave', 'back');
    await page.getByTestId('leave-stay').click();
    expect(page.url()).toBe(editorUrl);
    await expect(page.getByTestId('node-workflow-1')).toBeVisible();
    await expect(page.getByTestId('mesh-dirty')).toBeVisible();
  });

  await test.step('Back, then leave without saving: the previous page, the edit dropped', async () => {
    await page.goBack();
    await page.getByTestId('leave-discard').click();
    await expect(page).toHaveURL((u) => u.pathname === '/meshes');
    await page.goto(editorUrl);
    await expect(page.getByTestId('node-a')).toBeVisible();
    await expect(page.getByTestId('node-workflow-1')).toHaveCount(0);
    await expect(page.getByTestId('mesh-version')).toHaveText('v1');
  });

  await test.step('a link, then save and leave: this mesh saved as v2, then the link followed', async () => {
    await addMember(page);
    await page.getByTestId('nav-runs').click();
    await page.getByTestId('leave-save').click();
    await expect(page).toHaveURL((u) => u.pathname === '/runs');
    await page.goto(editorUrl);
    await expect(page.getByTestId('mesh-version')).toHaveText('v2');
    await expect(page.getByTestId('node-workflow-1')).toBeVisible();
    await expect(page.getByTestId('mesh-clean')).toBeVisible();
  });

  await test.step('with nothing unsaved, links and Back just go', async () => {
    await page.getByTestId('nav-runs').click();
    await expect(page).toHaveURL((u) => u.pathname === '/runs');
    await expect(prompt).toHaveCount(0);
  });
});
