/** Canvas helpers: waiting for React Flow to stop moving, and drawing a channel with the mouse. */
import { expect, type Locator, type Page } from '@playwright/test';

type Box = { x: number; y: number; width: number; height: number };

/** The element's box once it has stopped moving (fitView animates after every click-to-add). */
export async function settledBox(locator: Locator): Promise<Box> {
  let previous: Box | null = null;
  await expect
    .poll(
      async () => {
        const box = await locator.boundingBox();
        const same = box !== null && previous !== null && JSON.stringify(box) === JSON.stringify(previous);
        previous = box;
        return same;
      },
      { message: 'the element to stop moving', intervals: [100] },
    )
    .toBe(true);
  if (previous === null) throw new Error('the element has no box');
  return previous;
}

/**
 * Waits for the server check of the canvas to finish. Findings change node heights (a message row
 * appears or goes), which moves the handles below them.
 */
export async function checksSettled(page: Page): Promise<void> {
  await expect(page.getByTestId('findings-summary')).not.toHaveText('checking…');
}

const centre = (b: Box) => ({ x: b.x + b.width / 2, y: b.y + b.height / 2 });

/** Drags from `from`'s bottom (out) handle to `to`'s top (in) handle, then waits for the new edge. */
export async function connect(page: Page, from: string, to: string): Promise<void> {
  await checksSettled(page);
  const start = centre(await settledBox(page.getByTestId(`handle-${from}-out`)));
  const end = centre(await settledBox(page.getByTestId(`handle-${to}-in`)));
  await page.mouse.move(start.x, start.y);
  await page.mouse.down();
  await page.mouse.move(end.x, end.y, { steps: 12 });
  await page.mouse.up();
  await expect(page.getByTestId(`edge-${from}-${to}`)).toHaveCount(1);
}
