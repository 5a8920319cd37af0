/**
 * The Secrets page (admins): a secret goes in once with the hosts (or tool servers) it may go to,
 * is listed by name and targets, and its value never comes back, not in the page nor in any
 * answer; a bad target is refused naming the field; a designer gets no page and no procedure.
 */
import { expect, test } from '@playwright/test';
import { personWithRole, queryText } from '../support/admin';
import { signIn } from '../support/session';

test('an admin stores a secret for a host and a tool server; the value is never shown again; removing it empties the list', async ({ page }) => {
  await signIn(page, '/meshes');
  await page.getByTestId('nav-secrets').click();
  await expect(page).toHaveURL((url) => url.pathname === '/secrets');
  const name = `E2E_KEY_${Date.now().toString(36).toUpperCase()}`;
  const value = `sk-e2e-${Date.now().toString(36)}-value`;
  await page.getByTestId('secret-set-name').fill(name);
  await page.getByTestId('secret-set-value').fill(value);
  await page.getByTestId('secret-set-hosts').fill('api.example.com, tool:search');
  await page.getByTestId('secret-set').click();
  const row = page.getByTestId(`secret-row-${name}`);
  await expect(row).toContainText('api.example.com, tool:search');
  await expect(page.getByTestId('secret-set-value')).toHaveValue('');
  await page.reload();
  await expect(row).toBeVisible();
  expect(await page.content()).not.toContain(value);
  expect(await queryText(page, 'secrets.list', { kind: 'secret' })).not.toContain(value);

  await page.getByTestId(`secret-remove-${name}`).click();
  await expect(row).toHaveCount(0);
});

test('a target that is neither a host nor tool:NAME is refused naming the field', async ({ page }) => {
  await signIn(page, '/secrets');
  await page.getByTestId('secret-set-name').fill('E2E_BAD_TARGET');
  await page.getByTestId('secret-set-value').fill('whatever-value');
  await page.getByTestId('secret-set-hosts').fill('http://api.example.com/x');
  await page.getByTestId('secret-set').click();
  await expect(page.getByTestId('secret-set-error')).toContainText('hosts: "http://api.example.com/x" is not a host');
  await expect(page.getByTestId('secret-row-E2E_BAD_TARGET')).toHaveCount(0);
});

test('a designer has no Secrets, Connections or Egress page and the procedures refuse them', async ({ page }) => {
  await signIn(page, '/meshes');
  const designer = await personWithRole(page, 'designer');
  for (const nav of ['nav-secrets', 'nav-connections', 'nav-egress', 'nav-tools']) await expect(designer.getByTestId(nav)).toHaveCount(0);
  for (const path of ['/secrets', '/connections', '/egress']) {
    const res = await designer.goto(path);
    expect(res?.status(), path).toBe(404);
  }
  const list = await designer.request.get(`/api/trpc/secrets.list?input=${encodeURIComponent(JSON.stringify({ json: { kind: 'connection' } }))}`);
  expect(list.status()).toBe(403);
  const allow = await designer.request.post('/api/trpc/egress.allow', { data: { json: { pattern: 'attacker.example', internal: false } } });
  expect(allow.status()).toBe(403);
  expect(await allow.text()).toContain('refused by the role policy');
});
