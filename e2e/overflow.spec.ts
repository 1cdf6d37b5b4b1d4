/** No page scrolls sideways on the narrowest phone we support (360 px), nor at 1920 px. */
import { everyPage, settle } from './every-page';
import { expect, test } from './fixtures';

for (const width of [360, 1920]) {
  test(`no page is wider than the window at ${width} px`, async ({ page, request, seed }) => {
    test.setTimeout(180_000);
    await page.setViewportSize({ width, height: 800 });
    const wide: string[] = [];
    for (const target of await everyPage(request, seed)) {
      await page.goto(target.url);
      await settle(page);
      const scroll = await page.evaluate(() => document.documentElement.scrollWidth);
      if (scroll > width) wide.push(`${target.name} ${target.url}: ${scroll} px`);
    }
    expect(wide, wide.join('\n')).toEqual([]);
  });
}
