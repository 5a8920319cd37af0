/** The automated accessibility check the specs share (axe-core, WCAG 2.x A and AA rules and best practice). */
import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';

/**
 * The serious and critical violations on the page as it is now (or only inside `selector`), one
 * line per rule: its id, impact, help text and up to four of the elements.
 */
export async function seriousViolations(page: Page, selector?: string): Promise<string[]> {
  const builder = new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice']);
  const result = await (selector ? builder.include(selector) : builder).analyze();
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.slice(0, 4).map((n) => n.target.join(' ')).join(', ')}`);
}
