import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { expect, test, type Page } from '@playwright/test';
import { signIn } from '../support/session';

/**
 * The claims example as it ships, on the embedded database the web server runs on (no
 * DATABASE_URL): a sample email through the seeded claims-intake mesh on the demo model, its claim
 * written to the `claims` table through the SQL connection `trellis`, then read back by a second,
 * read-only mesh imported through the mesh list.
 */
const SAMPLE = fileURLToPath(new URL('../../examples/claims/clm-1001.eml', import.meta.url));

/** A mesh that reads one claim back with a read-only SQL step on Trellis's own database. */
const READBACK = {
  format: 'trellis.mesh/v1',
  name: 'claims-readback',
  description: 'Reads the claim whose id is the uploaded text from the claims table.',
  members: [
    {
      id: 'lookup',
      kind: 'workflow',
      head: true,
      steps: [
        { type: 'map', fields: { claim_id: 'text' } },
        {
          type: 'sql',
          connection: 'trellis',
          query: 'select claim_id, sender, bill_total::text as bill_total, bill_lines, bill_totals_match, reviewed from claims where claim_id = $1',
          params: ['claim_id'],
          into: 'found',
        },
      ],
    },
  ],
  channels: [],
};

/** Uploads `file` in the run starter of the open mesh, starts the run and returns its id once its page shows. */
async function startRun(page: Page, file: { name: string; mimeType: string; buffer: Buffer }): Promise<string> {
  await page.getByTestId('run-upload').setInputFiles(file);
  await expect(page.getByTestId('run-file')).toHaveText(file.name);
  await page.getByTestId('run-start').click();
  await page.waitForURL(/\/runs\/[^/]+$/);
  const runId = decodeURIComponent(new URL(page.url()).pathname.split('/').pop() ?? '');
  expect(runId).not.toBe('');
  return runId;
}

/** The run's output as JSON, through the output panel's Download button. */
async function downloadedOutput(page: Page): Promise<Record<string, unknown>> {
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('run-output-download').click()]);
  expect(download.suggestedFilename()).toBe('output.json');
  return JSON.parse(await readFile(await download.path(), 'utf8')) as Record<string, unknown>;
}

test('a claim email runs through the seeded claims-intake mesh and its claim is written to the claims table', async ({ page }) => {
  let runId = '';

  await test.step('sign in and open the seeded claims-intake mesh', async () => {
    await signIn(page);
    await page.getByTestId('mesh-link-claims-intake').click();
    await expect(page.getByTestId('mesh-name')).toHaveText('claims-intake');
    await expect(page.getByTestId('node-write')).toBeVisible();
  });

  await test.step('upload clm-1001.eml and start the run', async () => {
    runId = await startRun(page, { name: 'clm-1001.eml', mimeType: 'message/rfc822', buffer: await readFile(SAMPLE) });
  });

  const view = page.getByTestId('run-view');

  await test.step('the run ends done, every message done', async () => {
    await expect(view).toHaveAttribute('data-status', 'done', { timeout: 90_000 });
    await expect(page.getByTestId('run-cause')).toContainText('Finished');
    const progress = page.getByTestId('run-progress');
    const published = Number(await progress.getAttribute('data-published'));
    expect(published).toBeGreaterThan(0);
    expect(Number(await progress.getAttribute('data-done'))).toBe(published);
  });

  await test.step('the output shows the row the write step upserted', async () => {
    await expect(page.getByTestId('run-output')).toContainText('CLM-1001');
    const output = await downloadedOutput(page);
    const written = output.written as { claim_id: string; written_at: string }[];
    expect(written).toHaveLength(1);
    expect(written[0]?.claim_id).toBe('CLM-1001');
    expect(Number.isNaN(Date.parse(written[0]?.written_at ?? ''))).toBe(false);
    expect(output.row).toMatchObject({ claim_id: 'CLM-1001', sender: 'marta.ilves@example.net', bill_total: 515.5, bill_lines: 3, bill_totals_match: true });
  });

  await test.step('the run is listed as done', async () => {
    await page.getByTestId('nav-runs').click();
    const row = page.getByTestId(`run-row-${runId}`);
    await expect(row).toHaveAttribute('data-status', 'done');
    await expect(row).toContainText('claims-intake');
  });

  await test.step('a read-only mesh imported from the mesh list finds the row in the claims table', async () => {
    await page.goto('/meshes');
    await page.getByTestId('mesh-import-file').setInputFiles({
      name: 'claims-readback.json',
      mimeType: 'application/json',
      buffer: Buffer.from(JSON.stringify(READBACK), 'utf8'),
    });
    await expect(page.getByTestId('mesh-name')).toHaveText('claims-readback');
    await startRun(page, { name: 'claim-id.txt', mimeType: 'text/plain', buffer: Buffer.from('CLM-1001', 'utf8') });
    await expect(view).toHaveAttribute('data-status', 'done', { timeout: 60_000 });
    const output = await downloadedOutput(page);
    expect(output.found).toEqual([
      {
        claim_id: 'CLM-1001',
        sender: 'marta.ilves@example.net',
        bill_total: '515.50',
        bill_lines: 3,
        bill_totals_match: true,
        reviewed: false,
      },
    ]);
  });
});
