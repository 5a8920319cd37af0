/** Helpers for the admin pages' specs: fill a form by test ids, read what the server answered for a tRPC query. */
import { expect, type Page } from '@playwright/test';

/** The raw text of a tRPC query's answer as the signed-in page sees it (to look for values that must not be there). */
export async function queryText(page: Page, path: string, input?: unknown): Promise<string> {
  const q = input === undefined ? '' : `?input=${encodeURIComponent(JSON.stringify({ json: input }))}`;
  const res = await page.request.get(`/api/trpc/${path}${q}`);
  expect(res.status(), await res.text()).toBe(200);
  return res.text();
}

/** Signs a new person in with `role` (added on the Users page by the admin on `page`) and returns their page. */
export async function personWithRole(page: Page, role: string): Promise<Page> {
  const email = `${role}-${Date.now().toString(36)}@e2e.test`;
  await page.goto('/users');
  await page.getByTestId('user-add-email').fill(email);
  await page.getByTestId('user-add-role').selectOption(role);
  await page.getByTestId('user-add').click();
  await expect(page.getByTestId(`user-row-${email}`)).toBeVisible();
  const password = (await page.getByTestId('user-invite-password').textContent()) ?? '';
  const other = await (await page.context().browser()?.newContext())?.newPage();
  if (!other) throw new Error('no browser to open a second session in');
  await other.goto('/signin');
  await other.getByTestId('signin-email').fill(email);
  await other.getByTestId('signin-password').fill(password);
  await other.getByTestId('signin-submit').click();
  await expect(other.getByTestId('nav-user')).toHaveText(email);
  return other;
}
