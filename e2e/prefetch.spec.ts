import type { Page } from '@playwright/test';
import { expect, test } from './fixtures';
import { everyPage } from './every-page';

/**
 * Links do not prefetch the pages they lead to until the reader shows intent (hover, focus,
 * touch): Next's automatic prefetch of every link in view sent 10–40 RSC requests per page, each
 * running that page's server work (components/ui/Link.tsx). Counted, not timed.
 */
function rscRequests(page: Page): string[] {
  const seen: string[] = [];
  page.on('request', (request) => {
    const url = new URL(request.url());
    if (url.searchParams.has('_rsc') || request.headers()['rsc'] === '1') seen.push(url.pathname);
  });
  return seen;
}

async function settle(page: Page): Promise<void> {
  await page.waitForLoadState('networkidle');
  await expect(page.getByTestId('loading')).toHaveCount(0);
  await page.waitForLoadState('networkidle');
}

test('home: no RSC prefetch requests for links not hovered; hovering an agent link prefetches that page alone', async ({ page }) => {
  const rsc = rscRequests(page);
  await page.goto('/');
  await expect(page.getByTestId('fleet-row').first()).toBeVisible();
  await settle(page);
  expect(await page.locator('main a[href^="/agents/"]').count()).toBeGreaterThan(5);
  expect(rsc, 'RSC requests after the home page loaded, nothing hovered').toEqual([]);

  const link = page.getByTestId('fleet-row').first().getByTestId('agent-link');
  const href = (await link.getAttribute('href'))!;
  await link.hover();
  // Next may fetch one prefetch in more than one request (route tree, then segment data, or a retry
  // under load): what counts is that the hovered page is the only one fetched.
  await expect.poll(() => [...new Set(rsc)]).toEqual([href]);
});

test('lineage: no RSC prefetch requests for links not hovered', async ({ page, request, seed }) => {
  const lineage = (await everyPage(request, seed)).find((p) => p.name === 'lineage')!;
  const rsc = rscRequests(page);
  await page.goto(lineage.url);
  await expect(page.getByTestId('identity-card')).toBeVisible();
  await settle(page);
  expect(await page.locator('main a[href^="/agents/"]').count()).toBeGreaterThan(3);
  expect(rsc, 'RSC requests after the lineage page loaded, nothing hovered').toEqual([]);
});

test('search: one search request per page load, and the agent filter comes with the page', async ({ page, seed }) => {
  const searches: string[] = [];
  const agentLists: string[] = [];
  page.on('request', (request) => {
    const url = new URL(request.url());
    if (url.pathname === '/api/search') searches.push(request.url());
    if (url.pathname === '/api/agents') agentLists.push(request.url());
  });
  await page.goto('/search?q=10.42.0');
  await expect(page.getByTestId('first-appearance')).toBeVisible();
  await settle(page);
  expect(searches).toHaveLength(1);
  // The filter's names were prefetched into the page: no fleet list (with stats, or names) is asked for.
  expect(agentLists).toEqual([]);
  await expect(page.getByTestId('search-agent').locator('option', { hasText: seed.agentName })).toHaveCount(1);
});
