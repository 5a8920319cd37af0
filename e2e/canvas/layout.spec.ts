import { expect, test, type Page } from '@playwright/test';
import { expectCleanLayout, touches } from '../support/layout';
import { signIn } from '../support/session';

/**
 * Layout measured from element boxes: the seeded claims-intake mesh and a mesh imported without
 * positions both open with no members touching, every condition label readable and on no member,
 * and the whole mesh in view; findings sit in a badge instead of growing the member; the
 * assistant's button covers no panel.
 */

const CLAIMS_CONDITIONS = [
  "kind == 'claim form' and confidence >= 0.7",
  "kind == 'medical bill' and confidence >= 0.7",
  "kind == 'police report' and confidence >= 0.7",
  "confidence < 0.7 or kind == 'other'",
];

/** Labels whose text is cut off (wider than their box). */
async function cutLabels(page: Page): Promise<string[]> {
  return page.locator('[data-testid^="edge-label-"]').evaluateAll((els) =>
    els.filter((el) => el.scrollWidth > el.clientWidth + 1).map((el) => el.getAttribute('data-testid') ?? ''));
}

test('the seeded claims-intake mesh opens with every condition readable, no members touching, all in view', async ({ page }) => {
  await signIn(page);
  await page.getByTestId('mesh-link-claims-intake').click();
  await expect(page.getByTestId('mesh-name')).toHaveText('claims-intake');
  const { labels } = await expectCleanLayout(page);
  // The warnings these channels carry (join_may_skip_parts) put a mark before the condition.
  const texts = (await page.locator('[data-testid^="edge-label-classify-"]').allTextContents()).map((t) => t.replace(/^[⚠!]/, ''));
  expect(texts.sort()).toEqual([...CLAIMS_CONDITIONS].sort());
  expect(labels.length).toBeGreaterThanOrEqual(4);
  expect(await cutLabels(page)).toEqual([]);
  // Opening placed nothing the analyst has to save.
  await expect(page.getByTestId('mesh-clean')).toBeVisible();

  await test.step('the assistant button covers neither side panel nor canvas', async () => {
    const toggle = await page.getByTestId('assistant-toggle').boundingBox();
    for (const id of ['side-panel', 'canvas', 'palette']) {
      const box = await page.getByTestId(id).boundingBox();
      expect(toggle && box && touches(toggle, box), `assistant button on ${id}`).toBe(false);
    }
  });

  await test.step('the Layout button gives the same clean layout', async () => {
    await page.getByTestId('mesh-layout').click();
    await expectCleanLayout(page);
    expect(await cutLabels(page)).toEqual([]);
  });
});

/** A fan-out with conditions, a join and a member nothing reaches (a warning), with no positions at all. */
const UNPLACED = (name: string) => {
  const wf = (id: string) => ({ id, kind: 'workflow', steps: [{ type: 'pass' }] });
  return {
    format: 'trellis.mesh/v1',
    name,
    members: [{ ...wf('start'), head: true }, wf('route'), wf('north'), wf('south'), wf('east'), wf('west'), wf('join'), wf('spare')],
    channels: [
      { from: 'start', to: 'route' },
      { from: 'route', to: 'north', when: "region == 'north' and amount >= 1000" },
      { from: 'route', to: 'south', when: "region == 'south' and amount >= 1000" },
      { from: 'route', to: 'east', when: "region == 'east'" },
      { from: 'route', to: 'west', when: "region == 'west' or amount < 1000" },
      { from: 'north', to: 'join' },
      { from: 'south', to: 'join' },
      { from: 'east', to: 'join' },
      { from: 'west', to: 'join' },
    ],
  };
};

test('a mesh imported without positions is laid out the same way, and a finding does not grow its member', async ({ page }) => {
  const name = `unplaced-${Date.now().toString(36)}`;
  await signIn(page);
  await page.getByTestId('mesh-import-file').setInputFiles({
    name: `${name}.json`,
    mimeType: 'application/json',
    buffer: Buffer.from(JSON.stringify(UNPLACED(name)), 'utf8'),
  });
  await expect(page.getByTestId('mesh-name')).toHaveText(name);
  await expect(page.getByTestId('node-spare-finding')).toBeVisible();
  const { members } = await expectCleanLayout(page);
  expect(members).toHaveLength(8);
  expect(await cutLabels(page)).toEqual([]);

  await test.step('the orphan warning is a badge: same size as its siblings, the message in a popover', async () => {
    const spare = members.find((m) => m.id === 'node-spare')?.box;
    const north = members.find((m) => m.id === 'node-north')?.box;
    expect(spare?.height).toBeCloseTo(north?.height ?? 0, 0);
    await page.getByTestId('node-spare-finding').click();
    await expect(page.getByTestId('node-spare-findings')).toBeVisible();
    await page.getByTestId('node-spare-finding').press('Escape');
    await expect(page.getByTestId('node-spare-findings')).toHaveCount(0);
  });

  await test.step('importing the same file onto the canvas lays it out as well', async () => {
    await page.getByTestId('mesh-import-canvas-file').setInputFiles({
      name: `${name}.json`,
      mimeType: 'application/json',
      buffer: Buffer.from(JSON.stringify(UNPLACED(name)), 'utf8'),
    });
    await expect(page.getByTestId('notice-info')).toContainText('Imported');
    await expectCleanLayout(page);
  });
});

for (const name of ['word-split', 'bill-lines']) {
  test(`the seeded ${name} mesh opens with no members touching, no label on a member, all in view`, async ({ page }) => {
    await signIn(page);
    await page.getByTestId(`mesh-link-${name}`).click();
    await expect(page.getByTestId('mesh-name')).toHaveText(name);
    await expectCleanLayout(page);
    expect(await cutLabels(page)).toEqual([]);
    await expect(page.getByTestId('mesh-clean')).toBeVisible();
  });
}
