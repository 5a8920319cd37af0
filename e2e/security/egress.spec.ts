/**
 * The Egress page (admins): with no rules the TRELLIS_EGRESS_ALLOW default is in force; a rule
 * replaces it, an internal exception must be an exact host (a wildcard is refused naming the
 * field), and removing the last rule brings the default back.
 */
import { expect, test } from '@playwright/test';
import { signIn } from '../support/session';

test('an admin allows hosts, sees the policy in force, is refused an internal wildcard, and removes the rules', async ({ page }) => {
  await signIn(page, '/meshes');
  await page.getByTestId('nav-egress').click();
  await expect(page).toHaveURL((url) => url.pathname === '/egress');
  await expect(page.getByTestId('egress-rules-empty')).toBeVisible();
  await expect(page.getByTestId('egress-in-force')).toContainText('the TRELLIS_EGRESS_ALLOW default');
  await expect(page.getByTestId('egress-in-force')).toContainText('*');

  await page.getByTestId('egress-allow-pattern').fill('*.crm.example');
  await page.getByTestId('egress-allow').click();
  await expect(page.getByTestId('egress-row-*.crm.example')).toContainText('—');
  await page.getByTestId('egress-allow-pattern').fill('db.internal.example:8443');
  await page.getByTestId('egress-allow-internal').check();
  await page.getByTestId('egress-allow').click();
  await expect(page.getByTestId('egress-row-db.internal.example:8443')).toContainText('yes');
  await expect(page.getByTestId('egress-in-force')).toHaveText('In force: *.crm.example, db.internal.example:8443');

  await page.getByTestId('egress-allow-pattern').fill('*.corp.example');
  await page.getByTestId('egress-allow-internal').check();
  await page.getByTestId('egress-allow').click();
  await expect(page.getByTestId('egress-allow-error')).toContainText('internal: only an exact host may reach internal addresses, not *.corp.example');
  await expect(page.getByTestId('egress-row-*.corp.example')).toHaveCount(0);

  await page.getByTestId('egress-remove-*.crm.example').click();
  await page.getByTestId('egress-remove-db.internal.example:8443').click();
  await expect(page.getByTestId('egress-rules-empty')).toBeVisible();
  await expect(page.getByTestId('egress-in-force')).toContainText('the TRELLIS_EGRESS_ALLOW default');
});
