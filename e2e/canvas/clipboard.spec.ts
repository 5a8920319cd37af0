import { expect, test } from '@playwright/test';
import { edgeIds, exported, openImported, threeMembers } from '../support/mesh-file';
import { signIn } from '../support/session';

test('copy in one mesh, paste into another: fresh ids, the channel re-pointed, condition and settings kept', async ({ page, context }) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  const stamp = Date.now().toString(36);
  const source = threeMembers(`copy-src-${stamp}`);
  source.members[1] = { ...source.members[1], label: 'Billing' } as (typeof source.members)[number];
  source.channels[2] = { from: 'b', to: 'c', when: 'amount >= 100' };
  const target = { ...threeMembers(`copy-dst-${stamp}`), members: [threeMembers('x').members[0] as (typeof source.members)[number]], channels: [], layout: { a: { x: 0, y: 0 } } };
  await signIn(page);
  await openImported(page, target);
  const targetUrl = page.url();
  await openImported(page, source);

  await test.step('select b and c and copy them', async () => {
    await page.getByTestId('node-b').click();
    await page.getByTestId('node-c').click({ modifiers: ['Control'] });
    await expect(page.locator('.react-flow__node.selected')).toHaveCount(2);
    await page.keyboard.press('Control+c');
    await expect(page.getByTestId('notice-info')).toContainText('Copied 2 members and 1 channel');
    const text = await page.evaluate(() => navigator.clipboard.readText());
    expect((JSON.parse(text) as { format: string }).format).toBe('trellis.mesh/v1');
  });

  await test.step('paste into the other mesh', async () => {
    await page.goto(targetUrl);
    await expect(page.getByTestId('node-a')).toBeVisible();
    await page.keyboard.press('Control+v');
    await expect(page.getByTestId('node-b-copy')).toBeVisible();
    await expect(page.getByTestId('node-c-copy')).toBeVisible();
    expect(await edgeIds(page)).toEqual(['b-copy->c-copy']);
    const file = await exported(page);
    expect(file.name).toBe(target.name);
    expect(file.members.map((m) => m.id)).toEqual(['a', 'b-copy', 'c-copy']);
    expect(file.members[1]).toMatchObject({ label: 'Billing', kind: 'workflow' });
    expect(file.members.filter((m) => m.head)).toHaveLength(1);
    expect(file.channels).toEqual([{ from: 'b-copy', to: 'c-copy', when: 'amount >= 100' }]);
    expect(file.layout?.['b-copy']).toEqual({ x: -150 + 40, y: 200 + 40 });
  });

  await test.step('duplicate the pasted pair: fresh ids again', async () => {
    await expect(page.locator('.react-flow__node.selected')).toHaveCount(2);
    await page.keyboard.press('Control+d');
    await expect(page.getByTestId('node-b-copy-2')).toBeVisible();
    expect(await edgeIds(page)).toEqual(['b-copy-2->c-copy-2', 'b-copy->c-copy']);
  });

  await test.step('a clipboard that is not a mesh fragment is refused and nothing changes', async () => {
    const before = await exported(page);
    await page.evaluate(() => navigator.clipboard.writeText('{"format":"trellis.mesh/v1","name":"x","members":[{"id":"a","kind":"robot"}],"channels":[]}'));
    await page.keyboard.press('Control+v');
    await expect(page.getByTestId('notice-error')).toContainText('Nothing was pasted');
    expect(await exported(page)).toEqual(before);
  });

  await test.step('typing in a field never pastes members', async () => {
    await page.evaluate(() => navigator.clipboard.writeText('Label text'));
    await page.getByTestId('node-a').click();
    await page.getByTestId('member-label').click();
    await page.keyboard.press('Control+v');
    await expect(page.getByTestId('member-label')).toHaveValue('Label text');
    await expect(page.locator('[data-testid^="node-"][data-kind]')).toHaveCount(5);
  });
});
