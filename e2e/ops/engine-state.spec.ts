/**
 * The web server's startup hook runs the in-process worker from one bundle and its routes from
 * another; the engine's process-wide state must still be one: admission sees the running worker
 * (a run is admitted `now`, not "waits for a worker: none is running"), and /api/metrics shows the
 * worker's counters and the scrape-time gauges. Run it on the in-process bus too (E2E_BUS=local),
 * where the workers are known only in memory.
 */
import { expect, test, type Page } from '@playwright/test';
import { importMesh, startRun } from '../support/api';
import { signIn } from '../support/session';

/** `trellis_messages_total{state="done"}` from /api/metrics, and the whole text. */
async function scrape(page: Page): Promise<{ done: number; text: string }> {
  const res = await page.request.get('/api/metrics');
  expect(res.status()).toBe(200);
  const text = await res.text();
  const done = /^trellis_messages_total\{state="done"\} (\d+)$/m.exec(text);
  expect(done, 'trellis_messages_total{state="done"} in /api/metrics').not.toBeNull();
  return { done: Number(done?.[1]), text };
}

test('a run is admitted by the running worker, and /api/metrics counts what that worker did', async ({ page }) => {
  await signIn(page);
  const meshId = await importMesh(page, {
    format: 'trellis.mesh/v1',
    name: `e2e-engine-state-${Date.now().toString(36)}`,
    members: [
      { id: 'head', kind: 'workflow', head: true, steps: [{ type: 'pass' }] },
      { id: 'words', kind: 'workflow', steps: [{ type: 'split', by: 'word', field: 'text' }] },
    ],
    channels: [{ from: 'head', to: 'words' }],
  });
  const before = await scrape(page);
  const runId = await startRun(page, meshId, 'one two three four five');

  await page.goto(`/runs/${encodeURIComponent(runId)}`);
  const view = page.getByTestId('run-view');
  await expect(view).toHaveAttribute('data-status', 'done', { timeout: 60_000 });
  const done = Number(await page.getByTestId('run-progress').getAttribute('data-done'));
  expect(done).toBeGreaterThan(0);

  // Admitted at once by the worker this server runs, and said so on the run page.
  const admission = page.getByTestId('run-admission');
  await expect(admission).toHaveAttribute('data-verdict', 'now');
  await expect(admission).toHaveText(/^Runs now: [1-9]\d* workers?\b/);

  // The route renders the registry the worker counts in (counted just after its commit).
  await expect.poll(async () => (await scrape(page)).done - before.done, { timeout: 10_000 }).toBeGreaterThanOrEqual(done);
  const { text } = await scrape(page);
  expect(text).toMatch(/^trellis_queue_depth\{pool="default"\} \d+$/m);
  expect(text).toMatch(/^trellis_queue_oldest_age_seconds\{pool="default"\} [\d.]+$/m);
  expect(text).toMatch(/^trellis_step_duration_seconds_count\{kind="workflow"\} [1-9]\d*$/m);
  expect(text).toMatch(/^trellis_runs\{status="done",cause="[^"]*"\} [1-9]\d*$/m);
});
