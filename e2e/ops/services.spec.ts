/**
 * The Services page registers an outside service while the server holds the database: the API key
 * is shown once (with the command that runs the example against this server), it opens the
 * service's claim endpoint, and the list keeps only the key's prefix.
 */
import { expect, test } from '@playwright/test';
import { signIn } from '../support/session';

test('a service registered on the Services page shows its key once and is listed', async ({ page, baseURL }) => {
  await signIn(page, '/meshes');
  await page.getByTestId('nav-services').click();
  await expect(page).toHaveURL((url) => url.pathname === '/services');

  const name = `e2e-svc-${Date.now().toString(36)}`;
  await page.getByTestId('service-add-name').fill(name);
  await page.getByTestId('service-add').click();

  const shown = page.getByTestId('service-new-key');
  await expect(shown).toContainText('shown only this once');
  const apiKey = (await page.getByTestId('service-key').textContent())?.trim() ?? '';
  expect(apiKey).toMatch(/^trs_[A-Za-z0-9_-]{20,}$/);
  await expect(page.getByTestId('service-command')).toHaveText(
    `TRELLIS_URL=${new URL(baseURL ?? '').origin} TRELLIS_SERVICE_KEY=${apiKey} TRELLIS_SERVICE=${name} npm run example:records-check`,
  );

  const row = page.getByTestId(`service-row-${name}`);
  await expect(row).toBeVisible();
  await expect(page.getByTestId(`service-prefix-${name}`)).toHaveText(`${apiKey.slice(0, 10)}…`);

  // The key works for the service's REST API; a wrong one is refused.
  const claim = await page.request.post(`/api/v1/services/${name}/claim?wait=0`, { headers: { authorization: `Bearer ${apiKey}` }, data: {} });
  expect(claim.status(), await claim.text()).toBeLessThan(300);
  const wrong = await page.request.post(`/api/v1/services/${name}/claim?wait=0`, { headers: { authorization: `Bearer ${apiKey}x` }, data: {} });
  expect(wrong.status()).toBe(401);

  // Shown once: after a reload only the prefix is left, and the same name cannot be added again.
  await page.reload();
  await expect(row).toBeVisible();
  await expect(page.getByTestId('service-new-key')).toHaveCount(0);
  await expect(page.getByText(apiKey)).toHaveCount(0);
  await page.getByTestId('service-add-name').fill(name);
  await page.getByTestId('service-add').click();
  await expect(page.getByTestId('service-add-error')).toContainText(name);
  await expect(page.getByTestId('service-new-key')).toHaveCount(0);
});

test('an unknown /api/v1 path answers a JSON 404 for every method; the real endpoints still answer', async ({ request }) => {
  for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const) {
    const res = await request.fetch('/api/v1/no-such/thing', { method });
    expect(res.status(), method).toBe(404);
    expect(res.headers()['content-type']).toContain('application/json');
    const body = (await res.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('not_found');
    expect(body.error.message).toContain(`${method} /api/v1/no-such/thing`);
  }
  expect((await request.get('/api/v1/openapi.json')).status()).toBe(200);
  const claim = await request.post('/api/v1/services/nobody/claim?wait=0', { data: {} });
  expect(claim.status()).toBe(401);
  const runs = await request.post('/api/v1/meshes/00000000-0000-0000-0000-000000000000/runs', { data: {} });
  expect(runs.status()).toBe(401);
  expect(((await runs.json()) as { error: { code: string } }).error.code).toBe('unauthorized');
});
