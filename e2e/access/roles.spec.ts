import { expect, test, type Browser, type Page } from '@playwright/test';
import { importFailingMesh, importMesh, startRun } from '../support/api';
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

  test('each role sees only the controls it may use: viewers none, operators run, re-open and approve, designers edit', async ({ page, browser }) => {
    // Four people, six pages each: more than the default budget on a loaded two-core machine.
    test.setTimeout(300_000);
    const stamp = Date.now().toString(36);
    await signIn(page, '/users');
    const passwords: Record<string, string> = {};
    for (const role of ['viewer', 'operator', 'designer']) passwords[role] = await invite(page, `${role}-${stamp}@e2e.test`, role);

    // What there is to act on: a mesh, a failed run, and an output waiting for approval.
    const { meshId, name: failingName } = await importFailingMesh(page, 'e2e-roles-fail');
    const failedRun = await startRun(page, meshId, 'fail on purpose');
    const reviewedName = `e2e-roles-review-${stamp}`;
    const reviewed = await importMesh(page, {
      format: 'trellis.mesh/v1',
      name: reviewedName,
      members: [
        { id: 'head', kind: 'workflow', head: true, steps: [{ type: 'pass' }] },
        { id: 'review', kind: 'workflow', approval: 'required', steps: [{ type: 'pass' }] },
      ],
      channels: [{ from: 'head', to: 'review' }],
    });
    await startRun(page, reviewed, 'approve me');
    await page.goto(`/runs/${failedRun}`);
    await expect(page.getByTestId('run-status')).toHaveText('failed', { timeout: 30_000 });

    /** What one role sees on each page; `true` = the control is there. */
    async function sees(who: Page) {
      const has = async (testId: string) => (await who.getByTestId(testId).count()) > 0;
      await who.goto('/meshes');
      await expect(who.getByTestId(`mesh-row-${failingName}`)).toBeVisible();
      const meshList = { newMesh: await has('mesh-new'), importMesh: await has('mesh-import') };
      await who.goto(`/meshes/${meshId}`);
      await expect(who.getByTestId('mesh-export')).toBeVisible();
      const canvas = { save: await has('mesh-save'), palette: await has('palette'), run: await has('run-start'), readOnly: await has('mesh-read-only') };
      await who.goto(`/runs/${failedRun}`);
      await expect(who.getByTestId('run-status')).toHaveText('failed');
      await expect(who.getByTestId('run-attempts')).toBeVisible();
      const run = { reopen: await has('run-reopen') };
      await who.goto('/runs');
      await expect(who.getByTestId(`run-row-${failedRun}`)).toBeVisible();
      const runs = { reopenSelected: await has('runs-reopen'), select: (await who.getByTestId(`run-row-${failedRun}`).getByTestId('run-select').count()) > 0 };
      await who.goto('/actions');
      const approval = who.locator(`[data-testid="action-item"][data-kind="approval"][data-mesh="${reviewedName}"]`);
      await expect(approval).toBeVisible({ timeout: 25_000 });
      const actions = { approve: (await approval.getByTestId('approval-approve').count()) > 0, assign: (await approval.getByTestId('action-assign').count()) > 0 };
      const nav = { users: await has('nav-users'), audit: await has('nav-audit'), secrets: await has('nav-secrets'), tools: await has('nav-tools') };
      await who.goto('/services');
      const services = { add: await has('service-add') };
      return { meshList, canvas, run, runs, actions, nav, services };
    }

    const noAdmin = { users: false, audit: false, secrets: false, tools: false };
    expect(await sees(await signedIn(browser, `viewer-${stamp}@e2e.test`, passwords.viewer ?? ''))).toEqual({
      meshList: { newMesh: false, importMesh: false },
      canvas: { save: false, palette: false, run: false, readOnly: true },
      run: { reopen: false },
      runs: { reopenSelected: false, select: false },
      actions: { approve: false, assign: false },
      nav: noAdmin,
      services: { add: false },
    });
    expect(await sees(await signedIn(browser, `operator-${stamp}@e2e.test`, passwords.operator ?? ''))).toEqual({
      meshList: { newMesh: false, importMesh: false },
      canvas: { save: false, palette: false, run: true, readOnly: true },
      run: { reopen: true },
      runs: { reopenSelected: true, select: true },
      actions: { approve: true, assign: true },
      nav: noAdmin,
      services: { add: false },
    });
    expect(await sees(await signedIn(browser, `designer-${stamp}@e2e.test`, passwords.designer ?? ''))).toEqual({
      meshList: { newMesh: true, importMesh: true },
      canvas: { save: true, palette: true, run: true, readOnly: false },
      run: { reopen: false },
      runs: { reopenSelected: false, select: false },
      actions: { approve: false, assign: false },
      nav: noAdmin,
      services: { add: false },
    });
    expect(await sees(page)).toEqual({
      meshList: { newMesh: true, importMesh: true },
      canvas: { save: true, palette: true, run: true, readOnly: false },
      run: { reopen: true },
      runs: { reopenSelected: true, select: true },
      actions: { approve: true, assign: true },
      nav: { users: true, audit: true, secrets: true, tools: true },
      services: { add: true },
    });
  });
});
