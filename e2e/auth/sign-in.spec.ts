import { expect, test } from '@playwright/test';
import { ADMIN, submitSignIn } from '../support/session';

test.describe('sign-in', () => {
  test('a wrong password is refused with a message', async ({ page }) => {
    await page.goto('/signin');
    await submitSignIn(page, ADMIN.email, 'not-the-password');
    await expect(page.getByTestId('signin-error')).toHaveText('That email and password do not match.');
    await expect(page).toHaveURL(/\/signin/);
    await expect(page.getByTestId('nav-user')).toHaveCount(0);
  });

  test('the right password lands signed in', async ({ page }) => {
    await page.goto('/signin');
    await submitSignIn(page, ADMIN.email, ADMIN.password);
    await expect(page).toHaveURL((url) => url.pathname === '/meshes');
    await expect(page.getByTestId('nav-user')).toHaveText(ADMIN.email);
    await expect(page.getByTestId('mesh-list')).toBeVisible();
    await expect(page.getByTestId('signin-error')).toHaveCount(0);
  });

  test('an unauthenticated visit to /runs is sent to sign-in', async ({ page }) => {
    await page.goto('/runs');
    await expect(page).toHaveURL((url) => url.pathname === '/signin');
    await expect(page.getByTestId('signin-form')).toBeVisible();
    await expect(page.getByTestId('run-list')).toHaveCount(0);
  });
});
