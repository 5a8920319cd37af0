/**
 * The Tools page registers an MCP tool server (admins), and the web server's caps answer clear
 * refusals: an upload past TRELLIS_MAX_UPLOAD_BYTES and a 100,000-level nested tRPC body get a 413
 * naming the cap, never a 500.
 */
import { expect, test } from '@playwright/test';
import { signIn } from '../support/session';

test('a tool server registered on the Tools page is listed with its command and secret names', async ({ page }) => {
  await signIn(page, '/meshes');
  await page.getByTestId('nav-tools').click();
  await expect(page).toHaveURL((url) => url.pathname === '/tools');
  const name = `e2e-tool-${Date.now().toString(36)}`;
  await page.getByTestId('tool-add-name').fill(name);
  await page.getByTestId('tool-add-command').fill('/usr/local/bin/search-mcp');
  await page.getByTestId('tool-add-args').fill('--stdio');
  await page.getByTestId('tool-add-secret-env').fill('SEARCH_KEY=search_key');
  await page.getByTestId('tool-add').click();
  const row = page.getByTestId(`tool-row-${name}`);
  await expect(row).toContainText('/usr/local/bin/search-mcp --stdio');
  await expect(row).toContainText('search_key');
});

test('an upload past the cap and a deeply nested body answer 413 naming the cap', async ({ page }) => {
  await signIn(page, '/meshes');
  const upload = await page.request.post('/api/v1/meshes/no-such-mesh/runs', {
    headers: { 'x-file-name': 'big.txt', 'content-type': 'application/octet-stream' },
    data: Buffer.alloc(30 * 1024 * 1024, 97),
  });
  expect(upload.status()).toBe(413);
  expect(await upload.text()).toContain('TRELLIS_MAX_UPLOAD_BYTES');

  const deep = `{"json":{"definition":${'['.repeat(100_000)}${']'.repeat(100_000)}}}`;
  const nested = await page.request.post('/api/trpc/meshes.validate', { headers: { 'content-type': 'application/json' }, data: deep });
  expect(nested.status()).toBe(413);
  expect(await nested.text()).toContain('TRELLIS_MAX_JSON_DEPTH');
});
