/**
 * The Connections page (admins): a named SQL connection's URL goes in once, sealed; the list shows
 * its name and author, never the URL or its password; a URL that is not postgres:// is refused
 * naming the field; removing it takes it off the list.
 */
import { expect, test } from '@playwright/test';
import { queryText } from '../support/admin';
import { signIn } from '../support/session';

test('an admin stores a named connection; its URL never comes back; it can be removed', async ({ page }) => {
  await signIn(page, '/meshes');
  await page.getByTestId('nav-connections').click();
  await expect(page).toHaveURL((url) => url.pathname === '/connections');
  const name = `CRM_${Date.now().toString(36).toUpperCase()}`;
  const password = `pw-${Date.now().toString(36)}`;
  await page.getByTestId('connection-set-name').fill(name);
  await page.getByTestId('connection-set-url').fill(`postgres://crm:${password}@db.example:5432/crm`);
  await page.getByTestId('connection-set').click();
  const row = page.getByTestId(`connection-row-${name}`);
  await expect(row).toContainText(name);
  await page.reload();
  await expect(row).toBeVisible();
  expect(await page.content()).not.toContain(password);
  expect(await queryText(page, 'secrets.list', { kind: 'connection' })).not.toContain(password);
  // A connection is not a secret: the Secrets page does not list it.
  await page.goto('/secrets');
  await expect(page.getByTestId('secret-list')).toBeVisible();
  await expect(page.getByTestId(`secret-row-${name}`)).toHaveCount(0);

  await page.goto('/connections');
  await page.getByTestId(`connection-remove-${name}`).click();
  await expect(row).toHaveCount(0);
});

test('a URL that is not a postgres:// URL is refused naming the field', async ({ page }) => {
  await signIn(page, '/connections');
  await page.getByTestId('connection-set-name').fill('NOT_PG');
  await page.getByTestId('connection-set-url').fill('mysql://root@db.example/x');
  await page.getByTestId('connection-set').click();
  await expect(page.getByTestId('connection-set-error')).toContainText('value of NOT_PG: expected a postgres:// URL');
  await expect(page.getByTestId('connection-row-NOT_PG')).toHaveCount(0);
});
