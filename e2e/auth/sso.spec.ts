/**
 * Single sign-on end to end: the browser goes from Trellis's sign-in page to a real OpenID
 * provider (oidc-provider on the next port, e2e/support/oidc-provider.ts), signs in and consents
 * there, and comes back through the authorization code flow with PKCE. First sign-in creates the
 * user with the role its groups map to (TRELLIS_OIDC_ROLES in e2e/server.mjs) or links a person an
 * admin added; a disabled user is refused with the reason.
 */
import { expect, test, type Browser, type Page } from '@playwright/test';
import { signIn } from '../support/session';
import { startOidcProvider } from '../support/oidc-provider';

const appPort = Number(process.env.E2E_PORT ?? 3211);
const appUrl = `http://127.0.0.1:${appPort}`;
const issuer = `http://127.0.0.1:${appPort + 1}`;
const stamp = Date.now().toString(36);
const dora = `dora${stamp}`;
const olga = `olga${stamp}`;
const vic = `vic${stamp}`;
const email = (login: string) => `${login}@sso.e2e.test`;

let idp: Awaited<ReturnType<typeof startOidcProvider>>;
test.beforeAll(async () => {
  idp = await startOidcProvider(issuer, appUrl, { [dora]: { groups: ['trellis-designers', 'staff'] }, [vic]: { groups: ['staff'] } });
});
test.afterAll(async () => idp.close());

/** A fresh browser that presses "Sign in with Example ID" and signs in at the provider as `login`. */
async function ssoSignIn(browser: Browser, login: string): Promise<Page> {
  const context = await browser.newContext();
  // The provider's development pages import a web font; nothing leaves this machine.
  await context.route((url) => url.hostname !== '127.0.0.1', (route) => route.abort());
  const page = await context.newPage();
  await page.goto('/signin');
  await page.getByTestId('signin-sso').click();
  await page.waitForURL((url) => url.origin === issuer && url.pathname.startsWith('/interaction/'));
  await page.locator('input[name=login]').fill(login);
  await page.locator('input[name=password]').fill('any password');
  await page.getByRole('button', { name: 'Sign-in' }).click();
  await page.getByRole('button', { name: 'Continue' }).click();
  await page.waitForURL((url) => url.origin === appUrl);
  return page;
}

test.describe('single sign-on', () => {
  test('first sign-in creates the user with the role its groups map to, through code + PKCE', async ({ browser }) => {
    const page = await ssoSignIn(browser, dora);
    await expect(page.getByTestId('nav-user')).toHaveText(email(dora));
    await expect(page).toHaveURL((url) => url.pathname === '/meshes');
    expect(idp.seen.at(-1)).toEqual({ codeChallengeMethod: 'S256', hasCodeChallenge: true });
    await page.goto('/account');
    await expect(page.getByTestId('account-role')).toContainText('designer');
  });

  test('links a person an admin added; an unmapped group gets the default role; a disabled user is refused', async ({ page, browser }) => {
    await signIn(page, '/users');
    await page.getByTestId('user-add-email').fill(email(olga));
    await page.getByTestId('user-add-role').selectOption('operator');
    await page.getByTestId('user-add').click();
    await expect(page.getByTestId(`user-row-${email(olga)}`)).toBeVisible();

    const olgaPage = await ssoSignIn(browser, olga);
    await expect(olgaPage.getByTestId('nav-user')).toHaveText(email(olga));
    await olgaPage.goto('/account');
    await expect(olgaPage.getByTestId('account-role')).toContainText('operator');

    const vicPage = await ssoSignIn(browser, vic);
    await vicPage.goto('/account');
    await expect(vicPage.getByTestId('account-role')).toContainText('viewer');

    // Disabled on the Users page: the open session ends, and signing in again is refused.
    await page.reload();
    await page.getByTestId(`user-toggle-${email(vic)}`).click();
    await expect(page.getByTestId(`user-row-${email(vic)}`)).toContainText('disabled');
    await vicPage.goto('/meshes');
    await expect(vicPage).toHaveURL((url) => url.pathname === '/signin');
    const again = await ssoSignIn(browser, vic);
    await expect(again).toHaveURL((url) => url.pathname === '/signin');
    await expect(again.getByTestId('signin-sso-error')).toHaveText('Single sign-on refused: this account is disabled in Trellis; ask an admin to enable it.');
    await expect(again.getByTestId('nav-user')).toHaveCount(0);
  });
});
