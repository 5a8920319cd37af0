import { expect, test, type Browser, type Page } from '@playwright/test';
import { signIn, submitSignIn } from '../support/session';

/** Adds a person on the Users page and returns the password shown once. */
async function invite(page: Page, email: string, role: string): Promise<string> {
  await page.getByTestId('user-add-email').fill(email);
  await page.getByTestId('user-add-role').selectOption(role);
  await page.getByTestId('user-add').click();
  await expect(page.getByTestId(`user-row-${email}`)).toBeVisible();
  return (await page.getByTestId('user-invite-password').textContent()) ?? '';
}

/** A fresh browser session signed in as `email`. */
async function signedIn(browser: Browser, email: string, password: string): Promise<Page> {
  const page = await (await browser.newContext()).newPage();
  await page.goto('/signin');
  await submitSignIn(page, email, password);
  await expect(page.getByTestId('nav-user')).toHaveText(email);
  return page;
}

/** Calls a tRPC mutation from the page's session and returns the HTTP status and message. */
async function mutate(page: Page, path: string, input: unknown): Promise<{ status: number; message: string }> {
  const res = await page.request.post(`/api/trpc/${path}`, { data: { json: input } });
  const body = (await res.json()) as { error?: { json: { message: string } } };
  return { status: res.status(), message: body.error?.json.message ?? '' };
}

test.describe('people and access', () => {
  test('an admin invites a designer and an operator; each sees only what the role allows; a revoked token stops working', async ({ page, browser }) => {
    const stamp = Date.now().toString(36);
    const designer = `dee-${stamp}@e2e.test`;
    const operator = `oli-${stamp}@e2e.test`;
    await signIn(page, '/users');
    await expect(page.getByTestId('nav-users')).toBeVisible();
    const designerPassword = await invite(page, designer, 'designer');
    const operatorPassword = await invite(page, operator, 'operator');

    // The designer: meshes yes, people no.
    const dee = await signedIn(browser, designer, designerPassword);
    await expect(dee.getByTestId('nav-users')).toHaveCount(0);
    await expect(dee.getByTestId('nav-audit')).toHaveCount(0);
    expect((await mutate(dee, 'meshes.create', { name: `dee-${stamp}` })).status).toBe(200);
    expect(await mutate(dee, 'users.add', { email: `x-${stamp}@e2e.test`, role: 'admin' })).toEqual({
      status: 403,
      message: 'refused by the role policy: users.add needs "admin" (admin); you are designer',
    });
    await dee.goto('/users');
    await expect(dee.getByTestId('user-list')).toHaveCount(0);

    // The operator: runs and the Action Center yes, editing meshes no.
    const oli = await signedIn(browser, operator, operatorPassword);
    await expect(oli.getByTestId('nav-actions')).toBeVisible();
    await expect(oli.getByTestId('nav-users')).toHaveCount(0);
    expect((await mutate(oli, 'meshes.create', { name: `oli-${stamp}` })).message).toBe(
      'refused by the role policy: meshes.create needs "design" (admin, designer); you are operator',
    );

    // The operator's API token starts runs (404: no such mesh, past the access check) until revoked.
    await oli.goto('/account');
    await expect(oli.getByTestId('account-role')).toContainText('operator');
    await oli.getByTestId('token-name').fill('script');
    await oli.getByTestId('token-scope').selectOption('run');
    await oli.getByTestId('token-create').click();
    const token = (await oli.getByTestId('token-value').textContent()) ?? '';
    expect(token).toMatch(/^trl_/);
    const run = () => page.request.post('/api/v1/meshes/no-such-mesh/runs', { data: 'x', headers: { authorization: `Bearer ${token}` } });
    expect((await run()).status()).toBe(404);
    await oli.getByTestId('token-revoke-script').click();
    await expect(oli.getByTestId('token-row-script')).toContainText('revoked');
    const refused = await run();
    expect(refused.status()).toBe(401);
    expect(await refused.json()).toEqual({ error: { code: 'unauthorized', message: 'the API token is unknown, revoked or expired' } });

    // A role change ends the designer's session at once.
    await page.goto('/users');
    await page.getByTestId(`user-role-${designer}`).selectOption('viewer');
    await expect(page.getByTestId(`user-role-${designer}`)).toHaveValue('viewer');
    await dee.goto('/meshes');
    await expect(dee).toHaveURL((url) => url.pathname === '/signin');
  });
});
