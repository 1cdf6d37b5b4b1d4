/**
 * Every long list pages by cursor and draws a bounded window (≤ 2,000 rows): the fleet and agent
 * feeds (load more, agent filter), a sequence with more than 2,000 ops, a lineage of 130 versions
 * (permalinks to an old version), and the Memories tab (text filter and sorts). Seeded by
 * e2e/seed/paging.ts: Orion (2,100 creates in sequence 0, 1,000 updates in sequence 1, within 7 days)
 * and Kepler (one memory rewritten in 130 syncs).
 */
import type { APIRequestContext, Locator, Page } from '@playwright/test';
import { COMPARE_SERVER_DIFFS } from '@/components/compare/limits';
import { FIRST_SCREEN_VERSIONS, LINEAGE_PAGE } from '@/lib/ui/page-window';
import { expect, test } from './fixtures';

const MAX_DRAWN = 2000;

type Change = { seq: number; op: string; record_id: string };
type ChangesJson = { groups: { changes: Change[] }[]; next_cursor: string | null };

/** Every change of the feed, walking the API's pages. */
async function wholeFeed(request: APIRequestContext, query: string): Promise<string[]> {
  const keys: string[] = [];
  let cursor: string | null = null;
  do {
    const res = await request.get(`/api/changes?${query}&limit=1000${cursor ? `&cursor=${cursor}` : ''}`);
    expect(res.status()).toBe(200);
    const body = (await res.json()) as ChangesJson;
    keys.push(...body.groups.flatMap((g) => g.changes.map((c) => `${c.seq}:${c.op}:${c.record_id}`)));
    cursor = body.next_cursor;
  } while (cursor);
  return keys;
}

const rowKeys = (rows: Locator) =>
  rows.evaluateAll((els) => els.map((e) => `${e.getAttribute('data-seq')}:${e.getAttribute('data-op')}:${e.getAttribute('data-record-id')}`));

/**
 * Clicks `more` until it is gone; after each page, the drawn rows are distinct and at most
 * MAX_DRAWN. Returns every row seen, in order of first appearance.
 */
async function loadAll(page: Page, rows: Locator, more: Locator, keyOf: (rows: Locator) => Promise<string[]>): Promise<{ seen: string[]; maxDrawn: number }> {
  const seen: string[] = [];
  const known = new Set<string>();
  let maxDrawn = 0;
  for (;;) {
    const keys = await keyOf(rows);
    expect(new Set(keys).size, 'no row drawn twice').toBe(keys.length);
    expect(keys.length).toBeLessThanOrEqual(MAX_DRAWN);
    maxDrawn = Math.max(maxDrawn, keys.length);
    for (const k of keys) if (!known.has(k)) (known.add(k), seen.push(k));
    if ((await more.count()) === 0) return { seen, maxDrawn };
    const before = keys.at(-1);
    await more.click();
    await expect.poll(async () => (await keyOf(rows)).at(-1), { timeout: 60_000 }).not.toBe(before);
    await page.waitForTimeout(0);
  }
}

test.describe('paging at fleet scale', () => {
  // Long walks (up to 21 pages of up to 2,000 drawn rows): generous on a shared, loaded machine; nothing here is timed.
  test.setTimeout(900_000);

  test('the fleet feed filtered to one agent loads more than 1,000 changes of a week page by page, nothing twice or missed, at most 2,000 drawn', async ({ page, request, seed }) => {
    const { orion } = seed.paging!;
    const expected = await wholeFeed(request, `since=7d&agent=${orion.agentId}`);
    expect(expected.length).toBe(orion.items + orion.updated);

    await page.goto('/?since=7d');
    const panel = page.getByTestId('changes-panel');
    // The feed's rows are fetched by the browser: once drawn, the page is hydrated and the filter acts.
    await expect(panel.getByTestId('change-row').first()).toBeVisible({ timeout: 60_000 });
    await panel.getByTestId('agent-filter').selectOption(orion.agentId);
    await expect(page).toHaveURL(new RegExp(`agent=${orion.agentId}`));
    const rows = panel.getByTestId('change-row');
    // Only Orion's changes: every row links to Orion's sequences. Polled: the unfiltered feed's rows
    // (a page of 100 too) stay drawn until the filtered page has come.
    await expect.poll(() => rows.evaluateAll((els, id) => els.length > 0 && els.every((e) => e.querySelector(`a[href^="/agents/${id}/sequences/"]`)), orion.agentId), { timeout: 60_000 }).toBe(true);
    await expect(rows).toHaveCount(100, { timeout: 60_000 }); // the home feed's page (FLEET_FEED_PAGE)
    await expect(panel.getByTestId('changes-count')).toContainText('100+ since');

    const { seen, maxDrawn } = await loadAll(page, rows, panel.getByTestId('load-more'), rowKeys);
    expect(seen).toEqual(expected);
    expect(maxDrawn).toBe(MAX_DRAWN);
    // The window let the first pages go; "show newer" brings them back, the window still bounded.
    const newer = panel.getByTestId('load-newer');
    await expect(newer).toBeVisible();
    await newer.click();
    const pages = Math.ceil(expected.length / 100);
    const firstHeld = pages - MAX_DRAWN / 100; // the index of the first page the window still holds
    await expect.poll(async () => (await rowKeys(rows))[0]).toBe(expected[(firstHeld - 1) * 100]);
    expect(await rows.count()).toBeLessThanOrEqual(MAX_DRAWN);
  });

  test("an agent's Changes tab loads a whole window by date page by page", async ({ page, request, seed }) => {
    const { large } = seed;
    const day = new Date(Date.parse(large.syncedAt) - 86_400_000).toISOString().slice(0, 10);
    const expected = await wholeFeed(request, `since=${day}&agent=${large.agentId}`);
    expect(expected.length).toBe(large.records);
    await page.goto(`/agents/${large.agentId}?tab=changes&since=${day}`);
    const rows = page.getByTestId('change-row');
    await expect(rows).toHaveCount(200, { timeout: 60_000 });
    const { seen } = await loadAll(page, rows, page.getByTestId('load-more'), rowKeys);
    expect(seen).toEqual(expected);
    await expect(page.getByTestId('changes-count')).toHaveText(/^1005 since/);
  });

  test('a sequence with more than 2,000 ops draws a page, loads the next ones, and never more than 2,000', async ({ page, request, seed }) => {
    const { orion } = seed.paging!;
    const api = (await (await request.get(`/api/agents/${orion.agentId}/sequences/0`)).json()) as { op_counts: { create: number }; ops: unknown[] };
    expect(api.op_counts.create).toBe(orion.items);
    expect(api.ops).toHaveLength(100);

    await page.goto(`/agents/${orion.agentId}/sequences/0`);
    const section = page.getByTestId('ops-create');
    await expect(section.getByTestId('ops-count')).toHaveText(String(orion.items));
    const cards = section.getByTestId('op-card');
    await expect(cards).toHaveCount(100);
    const headings = (rows: Locator) => rows.evaluateAll((els) => els.map((e) => e.getAttribute('data-record-id') ?? ''));
    const { seen, maxDrawn } = await loadAll(page, cards, page.getByTestId('load-more-create'), headings);
    expect(seen).toHaveLength(orion.items);
    expect(maxDrawn).toBe(MAX_DRAWN);
    // The raw file lists a few of its 2,100 ops, not all of them.
    const raw = page.locator(`[data-testid="raw-file"][data-path="${orion.file}"]`);
    await expect(raw).toContainText(`${orion.items} record ops`);
    await expect(raw.getByTestId('raw-file-op')).toHaveCount(20);
    await expect(raw.getByTestId('raw-file-more')).toHaveText(`and ${orion.items - 20} more`);
  });

  test('a compare of 1,000 updated memories draws the first 25 of each kind and says so; a link asks for 200; a larger limit is a problem in words', async ({ page, seed, browser }) => {
    const { orion } = seed.paging!;
    await page.goto(`/agents/${orion.agentId}/compare?from=0&to=1`);
    const updated = page.getByTestId('compare-updated');
    await expect(updated.locator('h3')).toContainText(`${orion.updated}`);
    await expect(updated.locator('h3')).toContainText('(the first 25 shown)');
    await expect(updated.getByTestId('compare-memory')).toHaveCount(25);
    // The document draws the diffs of the first screen of memories, the others' after hydration (a place until then).
    const noScript = await browser.newContext({ javaScriptEnabled: false, storageState: await page.context().storageState() });
    const served = await noScript.newPage();
    await served.goto(`/agents/${orion.agentId}/compare?from=0&to=1`);
    const servedEntries = served.getByTestId('compare-memory'); // every kind's, in page order
    const entries = await servedEntries.count();
    expect(entries).toBeGreaterThan(COMPARE_SERVER_DIFFS);
    await expect(servedEntries.nth(COMPARE_SERVER_DIFFS - 1).getByTestId('folded-diff')).toHaveCount(1);
    await expect(servedEntries.nth(COMPARE_SERVER_DIFFS).getByTestId('folded-diff')).toHaveCount(0);
    await expect(served.getByTestId('compare-memories').getByTestId('diff-pending')).toHaveCount(entries - COMPARE_SERVER_DIFFS);
    await noScript.close();
    await expect(page.getByTestId('compare-memories').getByTestId('diff-pending')).toHaveCount(0);
    await expect(page.getByTestId('compare-memories').getByTestId('folded-diff')).toHaveCount(entries);
    await page.getByTestId('compare-more').click();
    await expect(page).toHaveURL(/[?&]limit=200$/);
    await expect(updated.getByTestId('compare-memory')).toHaveCount(200);
    await expect(updated.locator('h3')).toContainText('(the first 200 shown)');
    await expect(page.getByTestId('compare-more')).toHaveCount(0);
    await page.goto(`/agents/${orion.agentId}/compare?from=0&to=1&limit=201`);
    await expect(page.getByTestId('compare-problem')).toContainText('limit');
  });

  test('a sequence with more raw files than a page draws the first 100 and loads the rest from the raw API; a bad cursor is a 400 in words', async ({ page, request, seed }) => {
    const { orion } = seed.paging!;
    const expected = ['IDENTITY.md', orion.file, ...orion.notes];
    type RawPage = { items: { path: string; record_count: number }[]; next_cursor: string | null };
    const api = (await (await request.get(`/api/agents/${orion.agentId}/sequences/0`)).json()) as { raw: RawPage['items']; raw_count: number; raw_cursor: string | null };
    expect([api.raw.length, api.raw_count]).toEqual([100, expected.length]);
    // The API's pages, walked from the sequence's cursor: every file once, in order, the catalog's count on the first page.
    const walked = api.raw.map((f) => f.path);
    for (let cursor = api.raw_cursor; cursor; ) {
      const body = (await (await request.get(`/api/agents/${orion.agentId}/sequences/0/raw?limit=30&cursor=${cursor}`)).json()) as RawPage;
      walked.push(...body.items.map((f) => f.path));
      cursor = body.next_cursor;
    }
    expect(walked).toEqual(expected);
    expect(api.raw.find((f) => f.path === orion.file)?.record_count).toBe(orion.items);
    const bad = await request.get(`/api/agents/${orion.agentId}/sequences/0/raw?cursor=nonsense`);
    expect([bad.status(), ((await bad.json()) as { error: string }).error]).toEqual([400, expect.stringMatching(/paging cursor "nonsense" is not one this list gave out/)]);

    await page.goto(`/agents/${orion.agentId}/sequences/0`);
    const files = page.getByTestId('raw-file');
    await expect(files).toHaveCount(100);
    await expect(page.getByText(`Raw files (${expected.length})`)).toBeVisible();
    await page.getByTestId('raw-file-more-files').click();
    await expect(files).toHaveCount(expected.length);
    expect(await files.evaluateAll((els) => els.map((e) => e.getAttribute('data-path')))).toEqual(expected);
    await expect(page.getByTestId('raw-file-more-files')).toHaveCount(0);
  });

  test('the lineage API without parameters gives the first page of 50 (newest first) and a cursor, not every version', async ({ request, seed }) => {
    const { kepler } = seed.paging!;
    const records = (await (await request.get(`/api/agents/${kepler.agentId}/records?file=${encodeURIComponent(kepler.file)}`)).json()) as { items: { record_id: string }[] };
    const url = `/api/agents/${kepler.agentId}/records/${records.items[0]!.record_id}`;
    type LineagePage = { versions: { seq: number }[]; version_count: number; next_cursor: string | null };
    const first = (await (await request.get(url)).json()) as LineagePage;
    expect(first.version_count).toBe(kepler.versions);
    expect(first.versions.map((v) => v.seq)).toEqual(Array.from({ length: 50 }, (_, i) => kepler.versions - 1 - i));
    expect(first.next_cursor).not.toBeNull();
    const seqs = first.versions.map((v) => v.seq);
    for (let cursor = first.next_cursor; cursor; ) {
      const page = (await (await request.get(`${url}?cursor=${cursor}`)).json()) as LineagePage;
      seqs.push(...page.versions.map((v) => v.seq));
      cursor = page.next_cursor;
    }
    expect(seqs).toEqual(Array.from({ length: kepler.versions }, (_, i) => kepler.versions - 1 - i));
    expect((await request.get(`${url}?all=1`)).status()).toBe(400);
  });

  test('a lineage of 130 versions draws 50, loads older ones, and a permalink to the first version opens at it', async ({ page, request, seed }) => {
    const { kepler } = seed.paging!;
    const records = (await (await request.get(`/api/agents/${kepler.agentId}/records?file=${encodeURIComponent(kepler.file)}`)).json()) as { items: { record_id: string }[] };
    const recordId = records.items[0]!.record_id;
    await page.goto(`/agents/${kepler.agentId}/memories/${recordId}`);
    const versions = page.getByTestId('version');
    await expect(page.getByTestId('version-count')).toContainText(`${kepler.versions} versions`);
    await expect(versions).toHaveCount(50);
    const seqs = (rows: Locator) => rows.evaluateAll((els) => els.map((e) => e.getAttribute('data-seq') ?? ''));
    const { seen } = await loadAll(page, versions, page.getByTestId('load-more-versions'), seqs);
    expect(seen).toEqual(Array.from({ length: kepler.versions }, (_, i) => String(kepler.versions - 1 - i)));
    // The oldest drawn version is diffed against nothing (it is the birth); the one after it against it.
    await expect(versions.last()).toHaveAttribute('data-op', 'create');

    await page.goto('/');
    await page.goto(`/agents/${kepler.agentId}/memories/${recordId}#v3`);
    const target = page.locator('#v3');
    await expect(target).toBeVisible();
    await expect(target).toBeInViewport();
    await expect(page).toHaveURL(/#v3$/);
  });

  test('the lineage document renders the first screen of versions in full, the rest of the page as places and the version compare closed, which the browser fills', async ({ page, request, seed }) => {
    const { kepler } = seed.paging!;
    const records = (await (await request.get(`/api/agents/${kepler.agentId}/records?file=${encodeURIComponent(kepler.file)}`)).json()) as { items: { record_id: string }[] };
    const url = `/agents/${kepler.agentId}/memories/${records.items[0]!.record_id}`;
    const res = await request.get(url, { headers: { accept: 'text/html' } });
    expect(res.status()).toBe(200);
    const html = await res.text();
    const count = (needle: string) => html.split(needle).length - 1;
    expect(count('data-testid="version"')).toBe(LINEAGE_PAGE);
    expect(count('data-testid="word-diff"')).toBe(FIRST_SCREEN_VERSIONS);
    expect(count('data-deferred=""')).toBe(LINEAGE_PAGE - FIRST_SCREEN_VERSIONS);
    // Each place links to its sequence (a plain anchor, as next/link would draw it).
    const places = html.match(/<li [^>]*data-deferred=""[^>]*>.*?<\/li>/g) ?? [];
    expect(places).toHaveLength(LINEAGE_PAGE - FIRST_SCREEN_VERSIONS);
    for (const place of places) expect(place).toContain(`href="/agents/${kepler.agentId}/sequences/${/data-seq="(\d+)"/.exec(place)![1]}"`);
    // The closed "Compare two versions" is its summary only: no pickers, no diff of the whole text.
    expect(count('data-testid="version-compare"')).toBe(1);
    expect(count('data-testid="version-compare-from"')).toBe(0);
    await page.goto(url);
    await expect(page.getByTestId('version')).toHaveCount(LINEAGE_PAGE);
    await expect(page.locator('[data-deferred]')).toHaveCount(0);
    await expect(page.getByTestId('word-diff')).toHaveCount(LINEAGE_PAGE);
    await page.getByTestId('version-compare').locator('summary').click();
    await expect(page.getByTestId('version-compare-from')).toBeVisible();
  });

  test('the Memories tab of 2,100 memories filters by text and sorts by heading and by last change, server-side', async ({ page, request, seed }) => {
    const { orion } = seed.paging!;
    await page.goto(`/agents/${orion.agentId}?tab=memories`);
    const rows = page.getByTestId('record-row');
    await expect(rows).toHaveCount(200);
    await expect(page.getByTestId('records-total')).toContainText(`${orion.items} live`);

    await page.getByTestId('filter-q').fill('Item 0042 ');
    await page.getByTestId('filter-q').press('Enter');
    await expect(page).toHaveURL(/q=Item\+0042/);
    await expect(rows).toHaveCount(1);
    await expect(rows.first()).toContainText('Item 0042');
    await expect(page.getByTestId('records-total')).toContainText('1 match');

    await page.goto(`/agents/${orion.agentId}?tab=memories&q=revised`);
    await expect(page.getByTestId('records-total')).toContainText(`${orion.updated} match`);

    const headingsOf = (json: { items: { heading: string | null; seq: number }[] }) => json.items.map((r) => `${r.heading}@${r.seq}`);
    for (const sort of ['heading', 'changed'] as const) {
      await page.goto(`/agents/${orion.agentId}?tab=memories`);
      await expect(rows).toHaveCount(200);
      await page.getByTestId('records-sort').selectOption(sort);
      await expect(page).toHaveURL(new RegExp(`sort=${sort}`));
      const api = headingsOf(await (await request.get(`/api/agents/${orion.agentId}/records?sort=${sort}&limit=200`)).json());
      const drawn = async () => rows.evaluateAll((els) => els.map((e) => `${e.getAttribute('data-heading')}@${e.getAttribute('data-seq')}`));
      await expect.poll(drawn).toEqual(api);
      if (sort === 'changed') expect(api.every((h) => h.endsWith('@1'))).toBe(true);
      if (sort === 'heading') expect(api.slice(0, 2)).toEqual(['Item 0000@1', 'Item 0001@1']);
      await page.getByTestId('load-more').click();
      await expect(rows).toHaveCount(400);
    }
  });
});

test.describe('a sequence past the latest', () => {
  test('the workspace past the latest is an HTTP 404 without download buttons; moving between sequences in the page still works', async ({ page, request, seed }) => {
    // A document load, as a browser asks (without `Accept: text/html` the path is the ALF protocol's).
    const html = { headers: { accept: 'text/html' } };
    const direct = await request.get(`/agents/${seed.agentId}/workspace?seq=999`, html);
    expect(direct.status()).toBe(404);
    expect(await direct.text()).not.toContain('download-menu');
    const ok = await request.get(`/agents/${seed.agentId}/workspace?seq=1`, html);
    expect(ok.status()).toBe(200);

    const response = await page.goto(`/agents/${seed.agentId}/workspace?seq=999`);
    expect(response?.status()).toBe(404);
    await expect(page.getByTestId('download-menu')).toHaveCount(0);

    // Client-side: from a valid sequence to another, the file tree and downloads follow.
    await page.goto(`/agents/${seed.agentId}/workspace?seq=2`);
    await expect(page.getByTestId('download-menu')).toBeVisible();
    const input = page.getByTestId('workspace-seq');
    await input.fill('1');
    await input.press('Enter');
    await page.locator('[data-testid="workspace-page"][data-seq="1"]').waitFor();
    await expect(page.getByTestId('tree-file').first()).toBeVisible();
    await expect(page.getByTestId('download-menu')).toBeVisible();
    await input.fill('2');
    await input.press('Enter');
    await page.locator('[data-testid="workspace-page"][data-seq="2"]').waitFor();
    await expect(page.getByTestId('tree-file').first()).toBeVisible();
  });

  test('the sequence page past the latest is an HTTP 404 without download buttons; its neighbours link to each other', async ({ page, request, seed }) => {
    const direct = await request.get(`/agents/${seed.agentId}/sequences/999`, { headers: { accept: 'text/html' } });
    expect(direct.status()).toBe(404);
    const response = await page.goto(`/agents/${seed.agentId}/sequences/999`);
    expect(response?.status()).toBe(404);
    await expect(page.getByTestId('download-menu')).toHaveCount(0);
    await expect(page.getByTestId('sequence-workspace')).toHaveCount(0);

    await page.goto(`/agents/${seed.agentId}/sequences/2`);
    await page.getByTestId('next-sequence').click();
    await expect(page).toHaveURL(new RegExp(`/sequences/3$`));
    await expect(page.getByTestId('sequence-page')).toContainText('Sequence #3');
    await page.getByTestId('prev-sequence').click();
    await expect(page).toHaveURL(new RegExp(`/sequences/2$`));
    await expect(page.getByTestId('sequence-page')).toContainText('Sequence #2');
  });
});
