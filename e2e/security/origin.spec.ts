/**
 * The same-origin policy on tRPC: a change signed in by the session cookie is refused when it comes
 * from another site (its Origin, or Sec-Fetch-Site for a browser that names no Origin), as REST
 * refuses it; the same change from this site goes through. A form post (multipart, which a browser
 * sends without a preflight) from another port on localhost is refused before any procedure reads it.
 */
import { expect, test } from '@playwright/test';
import { signIn } from '../support/session';

const tokenInput = (name: string) => ({ json: { name, scope: 'read', expiresInDays: 1 } });

test('a signed-in tRPC change from another site is refused naming the same-origin policy; from this site it goes through', async ({ page, baseURL }) => {
  await signIn(page, '/meshes');
  const stamp = Date.now().toString(36);

  const foreign = await page.request.post('/api/trpc/tokens.create', { data: tokenInput(`cross-${stamp}`), headers: { Origin: 'http://127.0.0.1:1' } });
  expect(foreign.status()).toBe(403);
  expect(await foreign.text()).toContain('refused by the same-origin policy');

  const crossSite = await page.request.post('/api/trpc/tokens.create', { data: tokenInput(`site-${stamp}`), headers: { 'Sec-Fetch-Site': 'cross-site' } });
  expect(crossSite.status()).toBe(403);

  const form = await page.request.post('/api/trpc/tokens.create', { multipart: { name: `form-${stamp}`, scope: 'read' }, headers: { Origin: 'http://localhost:8080' } });
  expect(form.status()).toBe(403);

  const own = await page.request.post('/api/trpc/tokens.create', { data: tokenInput(`own-${stamp}`), headers: { Origin: new URL(baseURL ?? '').origin } });
  expect(own.status()).toBe(200);
  expect(await own.text()).toContain('trl_');
});
