/**
 * WCAG 2.1 AA on every page (e2e/every-page.ts) at a phone, a tablet and a desktop width, checked by
 * axe-core in real Chromium, in the light and the dark colour scheme.
 */
import AxeBuilder from '@axe-core/playwright';
import { assertEveryRouteCovered, everyPage, settle } from './every-page';
import { expect, test } from './fixtures';

const WIDTHS = [390, 1024, 1440] as const;

test('every page file is in the list of pages checked', async ({ request, seed }) => {
  assertEveryRouteCovered(await everyPage(request, seed));
});

for (const scheme of ['light', 'dark'] as const) {
  for (const width of WIDTHS) {
    test(`axe finds no WCAG 2.1 AA violation on any page at ${width} px (${scheme})`, async ({ page, request, seed }) => {
      test.setTimeout(240_000);
      await page.setViewportSize({ width, height: 900 });
      await page.emulateMedia({ colorScheme: scheme });
      const found: string[] = [];
      for (const target of await everyPage(request, seed)) {
        await page.goto(target.url);
        await settle(page);
        const result = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
        for (const v of result.violations) {
          const nodes = v.nodes.slice(0, 3).map((n) => `${n.target.join(' ')} (${n.failureSummary?.split('\n')[1]?.trim() ?? ''})`);
          found.push(`${target.name} ${target.url}: ${v.id} ×${v.nodes.length}: ${nodes.join(' | ')}`);
        }
      }
      expect(found, found.join('\n')).toEqual([]);
    });
  }
}
