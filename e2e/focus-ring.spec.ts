/**
 * Keyboard focus is seen in full: for every tab stop of the workspace pages (a file tree in a panel
 * that scrolls, a diff's folds, a long file's window buttons) the focus ring lies inside the box that
 * clips it. The file tree's rows and the diff's full-width buttons once drew their ring 2 px outside
 * themselves, so the scrolling panel cut its sides off.
 */
import type { Page } from '@playwright/test';
import { settle } from './every-page';
import { expect, FACTS, test } from './fixtures';

/** Tabs through the page (at most `stops` times) and names each focused element whose ring the nearest clipping box cuts. */
async function clippedRings(page: Page, stops: number): Promise<string[]> {
  const found: string[] = [];
  const seen = new Set<string>();
  for (let i = 0; i < stops; i++) {
    await page.keyboard.press('Tab');
    const r = await page.evaluate(() => {
      const e = document.activeElement as HTMLElement | null;
      if (!e || e === document.body) return null;
      const s = getComputedStyle(e);
      const rect = e.getBoundingClientRect();
      const key = `${e.tagName}|${e.getAttribute('data-testid') ?? ''}|${(e.textContent ?? '').slice(0, 30)}|${Math.round(rect.top + scrollY)}`;
      const name = `${e.tagName.toLowerCase()}[${e.getAttribute('data-testid') ?? ''}] “${(e.textContent ?? '').trim().slice(0, 30)}”`;
      if (s.outlineStyle === 'none' || parseFloat(s.outlineWidth) < 1) return { key, problem: `${name} has no focus ring` };
      const reach = parseFloat(s.outlineOffset) + parseFloat(s.outlineWidth);
      for (let p = e.parentElement; p; p = p.parentElement) {
        const ps = getComputedStyle(p);
        if (ps.overflowX === 'visible' && ps.overflowY === 'visible') continue;
        const box = p.getBoundingClientRect();
        const cut = rect.left - reach < box.left - 0.5 || rect.right + reach > box.right + 0.5 || rect.top - reach < box.top - 0.5 || rect.bottom + reach > box.bottom + 0.5;
        return { key, problem: cut ? `${name}: its ring is cut by ${p.tagName.toLowerCase()}[${p.getAttribute('data-testid') ?? ''}]` : null };
      }
      return { key, problem: null };
    });
    if (!r || seen.has(r.key)) break;
    seen.add(r.key);
    if (r.problem) found.push(r.problem);
  }
  return found;
}

test('every tab stop of the workspace shows its whole focus ring', async ({ page, seed }) => {
  test.setTimeout(120_000);
  await page.setViewportSize({ width: 1280, height: 720 });
  const cut: string[] = [];
  for (const url of [
    `/agents/${seed.agentId}/workspace?seq=3&file=${FACTS.workspaceFile}&compare=0`,
    `/agents/${seed.large.agentId}/workspace?file=${seed.large.file}`,
  ]) {
    await page.goto(url);
    await settle(page);
    await expect(page.getByTestId('tree-file').first()).toBeVisible();
    for (const problem of await clippedRings(page, 80)) cut.push(`${url}: ${problem}`);
  }
  expect(cut, cut.join('\n')).toEqual([]);
});
