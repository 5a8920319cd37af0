import { readFile } from 'node:fs/promises';
import { expect, test } from '@playwright/test';
import { signIn } from '../support/session';

/**
 * A small document with everything the split-and-join must keep byte for byte: pages (form feeds),
 * CRLF and LF line ends, tabs, runs of spaces, an empty line and trailing spaces.
 */
const DOCUMENT = [
  'Trellis word-split self-test\r\n',
  'The quick brown fox\tjumps over the lazy dog.\r\n',
  'Pack my box with  five dozen liquor jugs. \r\n',
  '\r\n',
  'Sphinx of black quartz, judge my vow.\n',
  '\f',
  'Page two:\tcolumns\tseparated\tby\ttabs\r\n',
  'How vexingly quick daft zebras jump!\r\n',
  '    indented line with trailing space \r\n',
  '\f',
  'Page three ends without a newline and with a trailing space ',
].join('');

test('a document runs through word-split and comes back unchanged', async ({ page }) => {
  let runId = '';

  await test.step('sign in and open the word-split mesh', async () => {
    await signIn(page);
    await page.getByTestId('mesh-link-word-split').click();
    await expect(page.getByTestId('mesh-name')).toHaveText('word-split');
    await expect(page.getByTestId('node-pages-head')).toBeVisible();
    await expect(page.getByTestId('findings-none')).toBeVisible();
  });

  await test.step('upload the document and start the run', async () => {
    await page.getByTestId('run-upload').setInputFiles({
      name: 'sample.txt',
      mimeType: 'text/plain',
      buffer: Buffer.from(DOCUMENT, 'utf8'),
    });
    await expect(page.getByTestId('run-file')).toHaveText('sample.txt');
    await page.getByTestId('run-start').click();
    await page.waitForURL(/\/runs\/[^/]+$/);
    runId = decodeURIComponent(new URL(page.url()).pathname.split('/').pop() ?? '');
    expect(runId).not.toBe('');
  });

  const view = page.getByTestId('run-view');

  await test.step('the run finishes with every message done', async () => {
    await expect(view).toHaveAttribute('data-status', 'done', { timeout: 60_000 });
    await expect(page.getByTestId('run-status')).toBeVisible();
    await expect(page.getByTestId('run-cause')).toContainText('Finished');
    const progress = page.getByTestId('run-progress');
    const published = Number(await progress.getAttribute('data-published'));
    const done = Number(await progress.getAttribute('data-done'));
    expect(published).toBeGreaterThan(0);
    expect(done).toBe(published);
    await expect(page.getByTestId('node-words-counts')).toBeVisible();
    await expect(page.getByTestId('message-trail').getByTestId('message-row').first()).toBeVisible();
    await expect(page.getByTestId('message-row').and(page.locator(':not([data-status="done"])'))).toHaveCount(0);
  });

  await test.step('the output equals the input exactly', async () => {
    const output = page.getByTestId('run-output');
    await expect(output).toContainText('The quick brown fox');
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('run-output-download').click()]);
    const bytes = await readFile(await download.path());
    expect(bytes.toString('utf8')).toBe(DOCUMENT);
    expect(bytes.equals(Buffer.from(DOCUMENT, 'utf8'))).toBe(true);
  });

  await test.step('the run is listed as done', async () => {
    await page.getByTestId('nav-runs').click();
    await expect(page).toHaveURL((url) => url.pathname === '/runs');
    const row = page.getByTestId(`run-row-${runId}`);
    await expect(row).toHaveAttribute('data-status', 'done');
    await expect(row).toContainText('word-split');
    await page.getByTestId('runs-filter-status').selectOption('done');
    await expect(row).toBeVisible();
    await row.getByTestId('run-link').click();
    await expect(view).toHaveAttribute('data-status', 'done');
  });
});
