/** Signing in as the admin that server.mjs creates, shared by every spec. */
import { expect, type Page } from '@playwright/test';

export const ADMIN = { email: 'admin@trellis.local', password: 'e2e-password' } as const;

/** Fills the sign-in form on the current page and submits it (no waiting for the outcome). */
export async function submitSignIn(page: Page, email: string, password: string): Promise<void> {
  await page.getByTestId('signin-email').fill(email);
  await page.getByTestId('signin-password').fill(password);
  await page.getByTestId('signin-submit').click();
}

/** Signs in as the admin from the sign-in page and waits for the signed-in app (the mesh list by default). */
export async function signIn(page: Page, path = '/meshes'): Promise<void> {
  await page.goto(`/signin?callbackUrl=${encodeURIComponent(path)}`);
  await submitSignIn(page, ADMIN.email, ADMIN.password);
  await expect(page.getByTestId('nav-user')).toHaveText(ADMIN.email);
  await expect(page).toHaveURL((url) => url.pathname === path);
}
