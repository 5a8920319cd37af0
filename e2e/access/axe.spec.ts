import { expect, test } from '@playwright/test';
import { seriousViolations } from '../support/a11y';
import { importMesh, startRun } from '../support/api';
import { signIn } from '../support/session';

/**
 * An automated accessibility check (axe-core, WCAG 2.x A and AA rules) on every page: no violation
 * of `serious` or `critical` impact. Each failure names the rule, its help text and the elements.
 */

const PAGES = [
  ['meshes list', '/meshes', 'mesh-link-claims-intake'],
  ['runs list', '/runs', null],
  ['exceptions', '/exceptions', null],
  ['action center', '/actions', null],
  ['audit', '/audit', null],
  ['secrets', '/secrets', null],
  ['connections', '/connections', null],
  ['egress', '/egress', null],
  ['services', '/services', null],
  ['tools', '/tools', null],
  ['users', '/users', null],
  ['account', '/account', null],
] as const;

test('the sign-in page has no serious accessibility violations', async ({ page }) => {
  await page.goto('/signin');
  await expect(page.getByTestId('signin-email')).toBeVisible();
  expect(await seriousViolations(page)).toEqual([]);
});

test('every signed-in page has no serious accessibility violations', async ({ page }) => {
  test.setTimeout(240_000);
  await signIn(page);
  const found: Record<string, string[]> = {};
  for (const [name, path, ready] of PAGES) {
    await page.goto(path);
    await expect(page.getByTestId('nav')).toBeVisible();
    if (ready) await expect(page.getByTestId(ready)).toBeVisible();
    await page.waitForLoadState('networkidle').catch(() => undefined);
    const v = await seriousViolations(page);
    if (v.length) found[name] = v;
  }

  const meshId = await importMesh(page, {
    format: 'trellis.mesh/v1',
    name: `axe-${Date.now().toString(36)}`,
    members: [{ id: 'only', kind: 'workflow', head: true, steps: [{ type: 'pass' }] }, { id: 'next', kind: 'workflow', steps: [{ type: 'pass' }] }],
    channels: [{ from: 'only', to: 'next', when: "kind == 'x'" }],
  });

  await page.goto(`/meshes/${meshId}`);
  await expect(page.getByTestId('node-only')).toBeVisible();
  await expect(page.getByTestId('findings-summary')).not.toHaveText('checking…');
  let v = await seriousViolations(page);
  if (v.length) found.editor = v;

  await page.getByTestId('node-only').click();
  await expect(page.getByTestId('member-panel')).toBeVisible();
  v = await seriousViolations(page);
  if (v.length) found['editor, member selected'] = v;

  const runId = await startRun(page, meshId, 'hello');
  await page.goto(`/runs/${encodeURIComponent(runId)}`);
  await expect(page.getByTestId('run-view')).toHaveAttribute('data-status', /done|failed/, { timeout: 60_000 });
  v = await seriousViolations(page);
  if (v.length) found['run page'] = v;

  expect(found).toEqual({});
});
