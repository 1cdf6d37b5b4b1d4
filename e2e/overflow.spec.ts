/**
 * No page scrolls sideways on the narrowest phone we support (360 px), on a 1280 × 720 laptop with the
 * browser zoomed to 200 % (640 × 360 CSS pixels: the tables are tables again there, not a phone's
 * cards), on that laptop unzoomed, at 1920 px, nor on a 2560 × 1440 screen.
 */
import { everyPage, settle } from './every-page';
import { expect, test } from './fixtures';

const WINDOWS = [
  { width: 360, height: 740 },
  { width: 640, height: 360 },
  { width: 1280, height: 720 },
  { width: 1920, height: 800 },
  { width: 2560, height: 1440 },
];

for (const { width, height } of WINDOWS) {
  test(`no page is wider than the window at ${width} × ${height} px`, async ({ page, request, seed }) => {
    test.setTimeout(180_000);
    await page.setViewportSize({ width, height });
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
