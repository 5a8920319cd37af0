import { readFile } from 'node:fs/promises';
import { expect, test } from '@playwright/test';
import { importMesh, startRun } from '../support/api';
import type { MeshFile } from '../support/mesh-file';
import { signIn } from '../support/session';

const MEMBERS = ['pages', 'lines', 'words', 'join-words', 'join-lines', 'join-pages'];

/** 40 lines of 50 words on 4 pages: 2,000 words, enough for the run to take a few seconds. */
function document(): string {
  const line = Array.from({ length: 50 }, (_, i) => `word${i}`).join(' ');
  const page = Array.from({ length: 10 }, () => line).join('\n');
  return Array.from({ length: 4 }, () => page).join('\f');
}

test('a word-split run shows a timeline with a row per member and a throughput chart', async ({ page }) => {
  await signIn(page);
  await page.getByTestId('mesh-link-word-split').click();
  await expect(page.getByTestId('mesh-name')).toHaveText('word-split');
  const meshId = decodeURIComponent(new URL(page.url()).pathname.split('/').pop() ?? '');
  const runId = await startRun(page, meshId, document(), 'words.txt');
  await page.goto(`/runs/${runId}`);
  const view = page.getByTestId('run-view');
  const timeline = page.getByTestId('run-timeline');
  const chart = page.getByTestId('run-throughput');

  await test.step('every member has a row in publishing order, with its message count', async () => {
    await expect(view).toHaveAttribute('data-status', 'done', { timeout: 120_000 });
    await expect(chart.getByTestId('run-throughput-live')).toHaveCount(0);
    await expect(timeline).toHaveAttribute('data-members', String(MEMBERS.length));
    const rows = await timeline.locator('[data-testid^="timeline-row-"]').evaluateAll((els) => els.map((e) => e.getAttribute('data-testid')));
    expect(rows).toEqual(MEMBERS.map((m) => `timeline-row-${m}`));
    // 40 lines reach words, which splits them into the 2,000 words that reach join-words.
    await expect(timeline.getByTestId('timeline-row-words')).toHaveAttribute('data-messages', '40');
    await expect(timeline.getByTestId('timeline-row-join-words')).toHaveAttribute('data-messages', '2000');
    await expect(timeline.getByTestId('timeline-row-join-words')).toContainText('2,000 messages');
    await expect(timeline.getByTestId('timeline-row-pages')).toContainText('1 message');
    await expect(timeline.getByTestId('timeline-row-pages')).not.toContainText('1 messages');
    // Each member's bar is drawn with a width, and the words bar starts no earlier than the pages bar.
    const box = async (m: string) => {
      const b = await timeline.getByTestId(`timeline-row-${m}`).getByTestId('timeline-bar').boundingBox();
      expect(b, `the ${m} bar is drawn`).not.toBeNull();
      return b ?? { x: 0, y: 0, width: 0, height: 0 };
    };
    const pages = await box('pages');
    const words = await box('words');
    expect(words.width).toBeGreaterThan(0);
    expect(words.x).toBeGreaterThanOrEqual(pages.x - 1);
  });

  await test.step('the chart draws messages done per second as bars', async () => {
    await expect(chart.locator('.recharts-bar-rectangle').first()).toBeVisible();
    expect(Number(await chart.getAttribute('data-peak'))).toBeGreaterThan(0);
    await expect(chart).toContainText('Messages done per second');
  });
});

test('while a run waits on an outside service, the timeline and chart are live and show the parked member', async ({ page }) => {
  await signIn(page);
  const service = `tl-${Date.now().toString(36)}`;
  const added = await page.request.post('/api/trpc/services.add', { data: { json: { name: service } } });
  expect(added.status(), await added.text()).toBe(200);
  const apiKey = ((await added.json()) as { result: { data: { json: { apiKey: string } } } }).result.data.json.apiKey;
  const wordSplit = JSON.parse(await readFile(new URL('../../examples/meshes/word-split.json', import.meta.url), 'utf8')) as MeshFile;
  const meshId = await importMesh(page, {
    ...wordSplit,
    name: `timeline-${service}`,
    members: [...wordSplit.members, { id: 'check', kind: 'service', service, label: 'Records check' }],
    channels: [...wordSplit.channels, { from: 'join-pages', to: 'check' }],
  });
  const runId = await startRun(page, meshId, document(), 'words.txt');
  await page.goto(`/runs/${runId}`);
  const view = page.getByTestId('run-view');
  const timeline = page.getByTestId('run-timeline');
  const chart = page.getByTestId('run-throughput');

  await test.step('parked at the service: running, the chart live, the check row open and waiting', async () => {
    await expect(timeline.getByTestId('timeline-row-check')).toBeVisible({ timeout: 60_000 });
    await expect(view).toHaveAttribute('data-status', 'running');
    await expect(chart.getByTestId('run-throughput-live')).toBeVisible();
    await expect(chart.locator('.recharts-bar-rectangle').first()).toBeVisible();
    await expect(timeline.getByTestId('timeline-row-check').getByTestId('timeline-bar')).toHaveClass(/border-dashed/);
    await expect(timeline.getByTestId('timeline-row-check').getByTestId('timeline-parked')).toBeVisible();
  });

  await test.step('the service answers: the run ends, the chart is no longer live, the wait stays on the row', async () => {
    const auth = { authorization: `Bearer ${apiKey}` };
    const claim = await page.request.post(`/api/v1/services/${service}/claim?wait=10`, { headers: auth, data: {} });
    expect(claim.status(), await claim.text()).toBe(200);
    const job = ((await claim.json()) as { job: { jobId: string } | null }).job;
    expect(job).not.toBeNull();
    const done = await page.request.post(`/api/v1/services/${service}/jobs/${job?.jobId ?? ''}/complete`, { headers: auth, data: { output: { checked: true } } });
    expect(done.status(), await done.text()).toBe(200);
    await expect(view).toHaveAttribute('data-status', 'done', { timeout: 60_000 });
    await expect(chart.getByTestId('run-throughput-live')).toHaveCount(0);
    await expect(timeline.getByTestId('timeline-row-check').getByTestId('timeline-bar')).not.toHaveClass(/border-dashed/);
    await expect(timeline.getByTestId('timeline-row-check').getByTestId('timeline-parked')).toContainText('parked');
  });
});
