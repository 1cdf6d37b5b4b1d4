/**
 * The agent page's open tab comes with its first page in the document (app/agents/[id]/tab-prefetch.ts):
 * a reader without JavaScript sees the list (the first screen of rows in full, the rest of the page
 * as their titles), and with JavaScript the tab does not ask the API again for what the document holds.
 */
import type { APIRequestContext, Browser, Page } from '@playwright/test';
import { FIRST_SCREEN_ROWS } from '@/lib/ui/page-window';
import { expect, test } from './fixtures';
import { AgentPage } from './pages/agent-page';

type Ids = { items: { record_id: string }[] };

async function ids(request: APIRequestContext, url: string): Promise<{ total: number; ids: string[] }> {
  const json = (await (await request.get(url)).json()) as Ids & { total: number };
  return { total: json.total, ids: json.items.map((r) => r.record_id) };
}

async function withoutScript<T>(browser: Browser, use: (page: Page) => Promise<T>): Promise<T> {
  const context = await browser.newContext({ javaScriptEnabled: false });
  try {
    return await use(await context.newPage());
  } finally {
    await context.close();
  }
}

const recordIds = (page: Page, testId: string) => page.getByTestId(testId).evaluateAll((els) => els.map((e) => e.getAttribute('data-record-id')));

/** The day before the large agent's one sync: its Changes tab's window that holds it. */
const dayBefore = (iso: string) => new Date(Date.parse(iso) - 86_400_000).toISOString().slice(0, 10);

test('without JavaScript, the Memories tab holds its first page, filtered and sorted by the URL: the first screen in full, the rest as linked titles', async ({ browser, request, seed }) => {
  const { large } = seed;
  for (const query of ['', '&sort=heading&q=number+1']) {
    const api = await ids(request, `/api/agents/${large.agentId}/records?limit=200${query}`);
    expect(api.ids.length, `${query}: the API's first page is more than a screen`).toBeGreaterThan(FIRST_SCREEN_ROWS);
    await withoutScript(browser, async (page) => {
      await page.goto(`/agents/${large.agentId}?tab=memories${query}`);
      await expect(page.getByTestId('records-total')).toContainText(`${api.total} ${query ? 'match' : 'live'}`);
      await expect(page.getByTestId('loading')).toHaveCount(0);
      expect(await recordIds(page, 'record-row'), query).toEqual(api.ids.slice(0, FIRST_SCREEN_ROWS));
      expect(await recordIds(page, 'record-row-deferred'), query).toEqual(api.ids.slice(FIRST_SCREEN_ROWS));
      const place = page.getByTestId('record-row-deferred').first().locator('a');
      await expect(place).toHaveAttribute('href', `/agents/${large.agentId}/memories/${api.ids[FIRST_SCREEN_ROWS]}`);
      await expect(place).not.toBeEmpty();
    });
  }
});

test('without JavaScript, the Changes and Timeline tabs hold their first page', async ({ browser, request, seed }) => {
  const { large } = seed;
  const since = dayBefore(large.syncedAt);
  const changes = (await (await request.get(`/api/changes?since=${since}&agent=${large.agentId}&limit=200`)).json()) as { groups: { changes: { record_id: string }[] }[] };
  // One sync, so one day and one group: the feed draws them in the API's order.
  expect(changes.groups).toHaveLength(1);
  const changed = changes.groups[0]!.changes.map((c) => c.record_id);
  expect(changed).toHaveLength(200);
  const sequences = (await (await request.get(`/api/agents/${seed.agentId}/sequences?limit=50`)).json()) as { items: { seq: number }[] };
  expect(sequences.items.length).toBeGreaterThan(1);
  await withoutScript(browser, async (page) => {
    await page.goto(`/agents/${large.agentId}?tab=changes&since=${since}`);
    await expect(page.getByTestId('loading')).toHaveCount(0);
    expect(await recordIds(page, 'change-row')).toEqual(changed.slice(0, FIRST_SCREEN_ROWS));
    expect(await recordIds(page, 'change-row-deferred')).toEqual(changed.slice(FIRST_SCREEN_ROWS));

    await page.goto(`/agents/${seed.agentId}`);
    const rows = page.getByTestId('sequence-row');
    expect(await rows.evaluateAll((els) => els.map((e) => Number(e.getAttribute('data-seq'))))).toEqual(sequences.items.map((s) => s.seq));
  });
});

test("with JavaScript, each tab draws the document's first page in full without asking the API for it; the next page is asked for", async ({ page, seed }) => {
  const { large } = seed;
  const asked: string[] = [];
  page.on('request', (r) => {
    const url = new URL(r.url());
    if (/^\/api\/(changes|agents\/[^/]+\/(records|sequences))$/.test(url.pathname)) asked.push(`${url.pathname}${url.search}`);
  });
  const agent = new AgentPage(page);
  for (const [tab, query, row] of [['memories', '', 'record-row'], ['changes', `&since=${dayBefore(large.syncedAt)}`, 'change-row']] as const) {
    await page.goto(`/agents/${large.agentId}?tab=${tab}${query}`);
    await page.locator('[data-testid="agent-page"][data-hydrated]').waitFor();
    await expect(page.getByTestId(row)).toHaveCount(200);
    await expect(page.getByTestId(`${row}-deferred`)).toHaveCount(0);
    await page.waitForLoadState('networkidle');
    expect(asked, `${tab}: the tab's first page came with the document`).toEqual([]);
  }
  await agent.goto(seed.agentId);
  await expect(agent.sequences.first()).toBeVisible();
  await page.waitForLoadState('networkidle');
  expect(asked, 'timeline: the sequences came with the document').toEqual([]);

  await page.goto(`/agents/${large.agentId}?tab=memories`);
  await page.locator('[data-testid="agent-page"][data-hydrated]').waitFor();
  await page.getByTestId('load-more').click();
  await expect(agent.records).toHaveCount(400);
  expect(asked).toHaveLength(1);
  expect(asked[0]).toMatch(new RegExp(`^/api/agents/${large.agentId}/records\\?.*cursor=`));
});

test('a tab URL the API refuses is no server error: the document answers, and the tab says what is wrong in words', async ({ page, request, seed }) => {
  const base = `/agents/${seed.agentId}`;
  // The server reads these tabs' first page from the URL now (tab-prefetch.ts): what the API refuses is
  // said by the tab as the API words it; an `at` that is no whole number is said in the address's words
  // (url-params.ts intParamProblem); what the tabs read leniently (an unknown op, a status) is drawn.
  const cases: [query: string, said: RegExp | null][] = [
    ['?tab=memories&at=99999', /sequence 99999 is outside 0\.\.\d+/],
    ['?tab=memories&sort=bogus', /“sort” must be “file”, “heading” or “changed”/],
    [`?tab=memories&q=${'x'.repeat(5000)}`, /at most 500 characters long; it has 5000/],
    ['?tab=changes&since=2026-99-99', /cannot read "2026-99-99T00:00:00Z" as a time/],
    ['?tab=memories&at=-1', /asks for at=“-1”, which is not a whole number/], ['?tab=memories&at=abc', /asks for at=“abc”, which is not a whole number/],
    ['?tab=memories&status=<script>', null],
    ['?tab=changes&op=bogus', null], ['?tab=changes&since=not-a-date', null],
  ];
  for (const [query, said] of cases) {
    const document = await request.get(`${base}${query}`, { headers: { accept: 'text/html' } });
    expect(document.status(), query).toBe(200);
    await page.goto(`${base}${query}`);
    await expect(page.locator('[data-testid="agent-page"][data-hydrated]'), query).toBeVisible();
    if (said) await expect(page.getByTestId('error-state'), query).toContainText(said);
    else {
      await page.waitForLoadState('networkidle');
      await expect(page.getByTestId('error-state'), query).toHaveCount(0);
    }
  }
});
