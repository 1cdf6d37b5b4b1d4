/**
 * Typing into a filter asks the server for nothing but the view's own data. A router navigation (`router.push` /
 * `router.replace`) in the app router fetches the route's RSC payload (a request with the `RSC` header): one per
 * keystroke made typing "deployment" ten server renders of the page, whose answers could arrive out of order. The
 * fleet's filter is applied in the browser, so its keystrokes write the address through the History API
 * (`useUrlState`'s `via: 'history'`), which the router follows without a request; the address still holds the
 * filter, a reload draws the same rows, and Back returns to the rows before the edit.
 */
import type { Page, Request } from '@playwright/test';
import { expect, test } from './fixtures';
import { AgentPage } from './pages/agent-page';
import { FleetPage } from './pages/fleet-page';

/** The page's RSC navigations (a link's intent prefetch aside) while `act` runs. */
async function rscNavigations(page: Page, act: () => Promise<void>): Promise<string[]> {
  const seen: string[] = [];
  const listener = (request: Request) => {
    const headers = request.headers();
    const rsc = headers.rsc === '1' || new URL(request.url()).searchParams.has('_rsc');
    if (rsc && headers['next-router-prefetch'] === undefined) seen.push(request.url());
  };
  page.on('request', listener);
  try {
    await act();
    // Whatever the last keystroke started has been sent by the time the page is idle.
    await page.waitForLoadState('networkidle');
  } finally {
    page.off('request', listener);
  }
  return seen;
}

const rowIds = (fleet: FleetPage) => fleet.rows.evaluateAll((els) => els.map((e) => e.getAttribute('data-agent-id')));

test('typing into the fleet filter asks the server for no page; the address keeps the filter, a reload too, Back undoes it', async ({ page, seed }) => {
  const fleet = new FleetPage(page);
  await fleet.goto();
  const all = await rowIds(fleet);
  const filter = page.getByTestId('fleet-filter');
  const typed = seed.agentName.toLowerCase();

  const requests = await rscNavigations(page, async () => {
    await filter.pressSequentially(typed);
    await expect(page).toHaveURL(new RegExp(`[?&]q=${typed}$`));
  });
  expect(requests, 'RSC requests while typing').toEqual([]);
  await expect(fleet.row(seed.agentName)).toBeVisible();
  const shown = await rowIds(fleet);
  expect(shown.length).toBeLessThan(all.length);

  await page.reload();
  await page.getByTestId('fleet-table').waitFor();
  await expect(filter).toHaveValue(typed);
  await expect.poll(() => rowIds(fleet)).toEqual(shown);

  // Back: before the whole edit (its first keystroke was the one history entry), no page asked of the server.
  await filter.focus();
  await page.keyboard.press('End');
  await filter.pressSequentially('x');
  await expect(page).toHaveURL(new RegExp(`[?&]q=${typed}x$`));
  await expect(fleet.rows).toHaveCount(0);
  const back = await rscNavigations(page, async () => {
    await page.goBack();
    await expect(page).toHaveURL(new RegExp(`[?&]q=${typed}$`));
    await expect(filter).toHaveValue(typed);
  });
  expect(back, 'RSC requests going back').toEqual([]);
  await expect.poll(() => rowIds(fleet)).toEqual(shown);
});

test('typing into the memories text filter and the search box asks the server for nothing until submitted', async ({ page, seed }) => {
  const agent = new AgentPage(page);
  await agent.goto(seed.agentId, 'memories');
  const memories = await rscNavigations(page, () => page.getByTestId('filter-q').pressSequentially('deployment'));
  expect(memories, 'RSC requests while typing a memories filter').toEqual([]);

  await page.goto('/search');
  await page.getByTestId('search-page').waitFor();
  const search = await rscNavigations(page, () => page.getByTestId('search-input').pressSequentially('deployment'));
  expect(search, 'RSC requests while typing a search').toEqual([]);
  const header = await rscNavigations(page, () => page.getByTestId('global-search').pressSequentially('deployment'));
  expect(header, 'RSC requests while typing in the header search').toEqual([]);
});
