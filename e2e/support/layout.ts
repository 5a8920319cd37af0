/** Layout checks measured from element boxes: which members and channel labels overlap, what is off view. */
import { expect, type Page } from '@playwright/test';
import { checksSettled, settledBox } from './canvas';

export type Box = { x: number; y: number; width: number; height: number };
export interface Drawn {
  id: string;
  box: Box;
}

/** True when `a` and `b` share any area, or come closer than `gap` px. */
export function touches(a: Box, b: Box, gap = 0): boolean {
  return a.x < b.x + b.width + gap && b.x < a.x + a.width + gap && a.y < b.y + b.height + gap && b.y < a.y + a.height + gap;
}

/** True when `inner` lies wholly inside `outer`. */
export function inside(inner: Box, outer: Box): boolean {
  return inner.x >= outer.x && inner.y >= outer.y && inner.x + inner.width <= outer.x + outer.width && inner.y + inner.height <= outer.y + outer.height;
}

/** Every pair from `a` × `b` (or within `a` when `b` is left out) that touches. */
export function touching(a: readonly Drawn[], b?: readonly Drawn[], gap = 0): string[] {
  const out: string[] = [];
  a.forEach((p, i) => {
    for (const q of b ?? a.slice(i + 1)) if (p.id !== q.id && touches(p.box, q.box, gap)) out.push(`${p.id} × ${q.id}`);
  });
  return out;
}

/** Boxes of the member nodes and the channel labels the canvas draws, once layout, checks and the view have settled. */
export async function drawn(page: Page): Promise<{ members: Drawn[]; labels: Drawn[]; canvas: Box }> {
  await checksSettled(page);
  const members = page.locator('[data-testid^="node-"][data-kind]');
  await expect(members.first()).toBeVisible();
  await settledBox(members.last());
  const labels = page.locator('[data-testid^="edge-label-"]');
  if ((await labels.count()) > 0) await settledBox(labels.last());
  const boxes = async (selector: string) =>
    page.locator(selector).evaluateAll((els) =>
      els.map((el) => {
        const r = el.getBoundingClientRect();
        return { id: el.getAttribute('data-testid') ?? '', box: { x: r.x, y: r.y, width: r.width, height: r.height }, text: el.textContent };
      }),
    );
  const canvas = await page.getByTestId('canvas').boundingBox();
  if (!canvas) throw new Error('the canvas has no box');
  return { members: await boxes('[data-testid^="node-"][data-kind]'), labels: await boxes('[data-testid^="edge-label-"]'), canvas };
}

/**
 * Asserts the canvas shows a clean layout: no two members touch, no label lies on a member or
 * another label, and every member and label is inside the canvas's visible area.
 */
export async function expectCleanLayout(page: Page): Promise<{ members: Drawn[]; labels: Drawn[] }> {
  const { members, labels, canvas } = await drawn(page);
  expect(touching(members, undefined, 4), 'members that touch').toEqual([]);
  expect(touching(labels, members), 'labels on members').toEqual([]);
  expect(touching(labels), 'labels on labels').toEqual([]);
  expect([...members, ...labels].filter((d) => !inside(d.box, canvas)).map((d) => d.id), 'outside the view').toEqual([]);
  return { members, labels };
}
