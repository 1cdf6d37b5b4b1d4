/**
 * WCAG 2.1 AA on every page (e2e/every-page.ts) at a phone, a tablet and a desktop width, checked by
 * axe-core in real Chromium, in the light and the dark colour scheme. With WCAG 2.2's target size
 * (2.5.8): every link and control is at least 24 × 24 px or has room around it, so a thumb on a phone
 * hits the one it means.
 */
import AxeBuilder from '@axe-core/playwright';
import { assertEveryRouteCovered, everyPage, settle } from './every-page';
import { expect, FACTS, test } from './fixtures';
import { AgentPage } from './pages/agent-page';

const WIDTHS = [390, 1024, 1440] as const;

test('every page file is in the list of pages checked', async ({ request, seed }) => {
  assertEveryRouteCovered(await everyPage(request, seed));
});

for (const scheme of ['light', 'dark'] as const) {
  for (const width of WIDTHS) {
    test(`axe finds no WCAG 2.2 AA violation on any page at ${width} px (${scheme})`, async ({ page, request, seed }) => {
      test.setTimeout(240_000);
      await page.setViewportSize({ width, height: 900 });
      await page.emulateMedia({ colorScheme: scheme });
      const found: string[] = [];
      for (const target of await everyPage(request, seed)) {
        await page.goto(target.url);
        await settle(page);
        const result = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa']).analyze();
        for (const v of result.violations) {
          const nodes = v.nodes.slice(0, 3).map((n) => `${n.target.join(' ')} (${n.failureSummary?.split('\n')[1]?.trim() ?? ''})`);
          found.push(`${target.name} ${target.url}: ${v.id} ×${v.nodes.length}: ${nodes.join(' | ')}`);
        }
      }
      expect(found, found.join('\n')).toEqual([]);
    });
  }
}

test.describe('keyboard', () => {
  test('the first Tab reaches a skip link that jumps past the header', async ({ page }) => {
    await page.goto('/');
    await page.keyboard.press('Tab');
    const skip = page.getByTestId('skip-link');
    await expect(skip).toBeFocused();
    await expect(skip).toBeInViewport();
    await page.keyboard.press('Enter');
    await expect(page.locator('main#main')).toBeFocused();
  });

  test('the agent tabs are one tab stop and the arrow keys move between them', async ({ page, seed }) => {
    await new AgentPage(page).goto(seed.agentId);
    const timeline = page.getByTestId('tab-timeline');
    await expect(timeline).toHaveAttribute('tabindex', '0');
    await expect(page.getByTestId('tab-memories')).toHaveAttribute('tabindex', '-1');
    await timeline.focus();
    await page.keyboard.press('ArrowRight');
    await expect(page).toHaveURL(/tab=memories/);
    await expect(page.getByTestId('tab-memories')).toBeFocused();
    await expect(page.getByTestId('tab-memories')).toHaveAttribute('aria-selected', 'true');
    await page.keyboard.press('End');
    await expect(page).toHaveURL(/tab=changes/);
    await page.keyboard.press('ArrowRight');
    await expect(page).not.toHaveURL(/tab=/);
    await expect(timeline).toBeFocused();
    await expect(page.getByRole('tabpanel')).toHaveAttribute('aria-labelledby', 'tab-timeline');
  });

  test('a chart is one labelled image, not an unlabelled tab stop', async ({ page, seed }) => {
    await page.goto(`/agents/${seed.agentId}`);
    const chart = page.getByTestId('activity-chart');
    await expect(chart.locator('svg').first()).toBeVisible();
    await expect(chart).toHaveAttribute('role', 'img');
    await expect(chart).toHaveAttribute('aria-label', /^Record changes per day from [A-Z][a-z]{2} \d+ to [A-Z][a-z]{2} \d+: \d+ creates?/);
    expect(await chart.locator('[tabindex]:not([tabindex="-1"])').count()).toBe(0);
    await page.goto('/');
    await expect(page.getByTestId('activity-sparkline').first().locator('svg')).toBeVisible();
    expect(await page.locator('[data-testid=activity-sparkline] [tabindex]:not([tabindex="-1"])').count()).toBe(0);
  });

  test('in the lineage, j and k move between versions and y copies a permalink to the version', async ({ page, context, seed }) => {
    await context.grantPermissions(['clipboard-read', 'clipboard-write']);
    await page.goto(`/agents/${seed.agentId}?tab=memories`);
    await page.getByTestId('record-link').getByText(FACTS.lineageHeading, { exact: true }).click();
    const versions = page.getByTestId('version');
    await expect(versions).toHaveCount(FACTS.lineageVersions.length);
    const seqs = await versions.evaluateAll((els) => els.map((e) => e.getAttribute('data-seq')));
    await page.locator('body').click({ position: { x: 1, y: 1 } });
    await page.keyboard.press('j');
    await expect(page).toHaveURL(new RegExp(`#v${seqs[0]}$`));
    await page.keyboard.press('j');
    await expect(page).toHaveURL(new RegExp(`#v${seqs[1]}$`));
    await expect(versions.nth(1)).toBeFocused();
    await page.keyboard.press('k');
    await expect(page).toHaveURL(new RegExp(`#v${seqs[0]}$`));
    await page.keyboard.press('j');
    await page.keyboard.press('y');
    await expect(page.getByTestId('version-keys-status')).toHaveText(`Copied the link to version #${seqs[1]}`);
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    expect(copied).toBe(`${new URL(page.url()).origin}${new URL(page.url()).pathname}#v${seqs[1]}`);
    // The permalink opens the lineage at that version.
    await page.goto(copied);
    await expect(page.locator(`#v${seqs[1]}`)).toBeInViewport();
  });

  test('dark mode follows prefers-color-scheme', async ({ page }) => {
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.goto('/');
    const dark = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    await page.emulateMedia({ colorScheme: 'light' });
    const light = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    const channels = (c: string) => (c.match(/[\d.]+/g) ?? []).slice(0, 3).map(Number);
    expect(Math.max(...channels(dark))).toBeLessThan(40);
    expect(Math.min(...channels(light))).toBeGreaterThan(220);
  });
});
