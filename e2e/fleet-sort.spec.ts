/**
 * The fleet table at fleet scale: every column sorts both ways (buttons in the headers, `aria-sort`), a filter box
 * narrows the rows as one types and counts them, both live in the address (`?sort=`, `?q=`) so a reload, a link and
 * Back/Forward keep them, the keyboard does all of it, and a phone gets a sort menu and no sideways scroll.
 * The expected orders are computed here from GET /api/agents, by the rule the page states (lib/ui/fleet.ts).
 */
import type { Page } from '@playwright/test';
import type { AgentSummary } from '@/lib/ui/api-types';
import { expect, test } from './fixtures';
import { FleetPage } from './pages/fleet-page';

const collator = new Intl.Collator('en', { numeric: true, sensitivity: 'base' });
const byName = (a: AgentSummary, b: AgentSummary) => collator.compare(a.name, b.name) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0) || (a.id < b.id ? -1 : 1);
const missingFirst = (x: number | null, y: number | null) => (x ?? -Infinity) - (y ?? -Infinity) || 0;

/** Each column's value comparison, ascending; ties fall to the name, then the id, whatever the direction. */
const COLUMNS: Record<string, (a: AgentSummary, b: AgentSummary) => number> = {
  name: (a, b) => collator.compare(a.name, b.name) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0),
  runtime: (a, b) => (a.runtime === b.runtime ? 0 : a.runtime === null ? -1 : b.runtime === null ? 1 : collator.compare(a.runtime, b.runtime)),
  sequence: (a, b) => missingFirst(a.latest_sequence, b.latest_sequence),
  last_sync: (a, b) => missingFirst(a.last_sync_at === null ? null : Date.parse(a.last_sync_at), b.last_sync_at === null ? null : Date.parse(b.last_sync_at)),
  live: (a, b) => a.live_records - b.live_records,
  changed: (a, b) => a.changed_records_7d - b.changed_records_7d || a.syncs_7d - b.syncs_7d,
};
const FIRST: Record<string, 'asc' | 'desc'> = { name: 'asc', runtime: 'asc', sequence: 'desc', last_sync: 'desc', live: 'desc', changed: 'desc' };

function expectedIds(agents: AgentSummary[], key: string, dir: 'asc' | 'desc'): string[] {
  const sign = dir === 'asc' ? 1 : -1;
  return [...agents].sort((a, b) => sign * COLUMNS[key]!(a, b) || byName(a, b)).map((a) => a.id);
}

async function fleetAgents(page: Page): Promise<AgentSummary[]> {
  return (await (await page.request.get('/api/agents')).json()) as AgentSummary[];
}

const rowIds = (fleet: FleetPage) => fleet.rows.evaluateAll((els) => els.map((e) => e.getAttribute('data-agent-id')));

test('every column sorts both ways from its header, aria-sort and the address saying which', async ({ page }) => {
  const agents = await fleetAgents(page);
  expect(agents.length).toBeGreaterThan(4);
  const fleet = new FleetPage(page);
  await fleet.goto();
  // The default: by name, A to Z — not the order the agents registered in.
  await expect(page.getByTestId('fleet-table').locator('th[aria-sort]')).toHaveCount(1);
  await expect(page.getByTestId('sort-name').locator('xpath=..')).toHaveAttribute('aria-sort', 'ascending');
  await expect.poll(() => rowIds(fleet)).toEqual(expectedIds(agents, 'name', 'asc'));
  expect(expectedIds(agents, 'name', 'asc')).not.toEqual(agents.map((a) => a.id));

  for (const key of Object.keys(COLUMNS)) {
    const first = FIRST[key]!;
    const second = first === 'asc' ? 'desc' : 'asc';
    for (const dir of key === 'name' ? ([second, first] as const) : ([first, second] as const)) {
      await page.getByTestId(`sort-${key}`).click();
      const param = key === 'name' && dir === 'asc' ? null : `${dir === 'desc' ? '-' : ''}${key}`;
      await expect.poll(() => new URL(page.url()).searchParams.get('sort'), `${key} ${dir}`).toBe(param);
      const th = page.getByTestId(`sort-${key}`).locator('xpath=..');
      await expect(th).toHaveAttribute('aria-sort', dir === 'asc' ? 'ascending' : 'descending');
      await expect(page.getByTestId('fleet-table').locator('th[aria-sort]')).toHaveCount(1);
      await expect.poll(() => rowIds(fleet), `${key} ${dir}`).toEqual(expectedIds(agents, key, dir));
    }
  }
});

test('the filter narrows the rows as one types, by name, id prefix or runtime, with a count and an empty state', async ({ page, seed }) => {
  const agents = await fleetAgents(page);
  const total = agents.length;
  const fleet = new FleetPage(page);
  await fleet.goto();
  const filter = page.getByTestId('fleet-filter');
  const count = page.getByTestId('fleet-count');
  await expect(count).toHaveText(`${total} agents`);

  // A name, typed a key at a time, case aside.
  await filter.pressSequentially(seed.agentName.toUpperCase().slice(0, 3));
  const byName = agents.filter((a) => a.name.toLowerCase().includes(seed.agentName.toLowerCase().slice(0, 3)));
  await expect(fleet.rows).toHaveCount(byName.length);
  await expect(count).toHaveText(`${byName.length} of ${total} agents`);
  await expect(fleet.row(seed.agentName)).toBeVisible();
  await expect(page).toHaveURL(new RegExp(`[?&]q=${seed.agentName.toUpperCase().slice(0, 3)}(&|$)`));

  // The start of an id.
  await filter.fill(seed.agentId.slice(0, 8));
  await expect(fleet.rows).toHaveCount(1);
  await expect(fleet.rows.first()).toHaveAttribute('data-agent-id', seed.agentId);
  await expect(count).toHaveText(`1 of ${total} agents`);

  // A runtime, by its label.
  await filter.fill('Hermes');
  const hermes = agents.filter((a) => a.runtime === 'hermes' || a.name.toLowerCase().includes('hermes'));
  expect(hermes.length).toBeGreaterThan(0);
  await expect.poll(() => rowIds(fleet)).toEqual(expectedIds(hermes, 'name', 'asc'));

  // Nothing: an empty state that says what was looked for, and a way back.
  await filter.fill('no such agent <b>');
  await expect(fleet.rows).toHaveCount(0);
  await expect(page.getByTestId('fleet-no-match')).toContainText('No agent matches “no such agent <b>”');
  await expect(count).toHaveText(`0 of ${total} agents`);
  await page.getByTestId('fleet-filter-clear').click();
  await expect(fleet.rows).toHaveCount(total);
  await expect(filter).toHaveValue('');
  await expect(page).not.toHaveURL(/[?&]q=/);
});

test('a reload and a link keep the sort and the filter; Back and Forward walk through them', async ({ page }) => {
  const agents = await fleetAgents(page);
  const openclaw = agents.filter((a) => a.runtime === 'openclaw');
  expect(openclaw.length).toBeGreaterThan(1);
  const fleet = new FleetPage(page);
  await fleet.goto();
  await page.getByTestId('sort-live').click();
  await expect(page).toHaveURL(/[?&]sort=-live(&|$)/);
  await page.getByTestId('fleet-filter').fill('openclaw');
  await expect(page).toHaveURL(/[?&]q=openclaw(&|$)/);
  const shown = expectedIds(openclaw, 'live', 'desc');
  await expect.poll(() => rowIds(fleet)).toEqual(shown);

  await page.reload();
  await page.getByTestId('fleet-table').waitFor();
  await expect(page.getByTestId('fleet-filter')).toHaveValue('openclaw');
  await expect(page.getByTestId('sort-live').locator('xpath=..')).toHaveAttribute('aria-sort', 'descending');
  await expect.poll(() => rowIds(fleet)).toEqual(shown);

  // The address alone, opened fresh (a shared link).
  const link = page.url();
  const other = await page.context().newPage();
  await other.goto(link);
  await other.getByTestId('fleet-table').waitFor();
  await expect.poll(() => rowIds(new FleetPage(other))).toEqual(shown);
  await other.close();

  // Back: before the filter (the whole edit is one step), then before the sort; Forward again.
  await page.goBack();
  await expect(page).not.toHaveURL(/[?&]q=/);
  await expect(page.getByTestId('fleet-filter')).toHaveValue('');
  await expect.poll(() => rowIds(fleet)).toEqual(expectedIds(agents, 'live', 'desc'));
  await page.goBack();
  await expect(page).not.toHaveURL(/[?&]sort=/);
  await expect.poll(() => rowIds(fleet)).toEqual(expectedIds(agents, 'name', 'asc'));
  await page.goForward();
  await page.goForward();
  await expect(page.getByTestId('fleet-filter')).toHaveValue('openclaw');
  await expect.poll(() => rowIds(fleet)).toEqual(shown);
});

test('a sort the address gets wrong is said, and the table shows its default order', async ({ page }) => {
  const agents = await fleetAgents(page);
  const fleet = new FleetPage(page);
  await page.goto('/?sort=%3Cimg%20src%3Dx%3Esize');
  await page.getByTestId('fleet-table').waitFor();
  await expect(page.getByTestId('fleet-sort-problem')).toContainText('sort=“<img src=x>size”, which is not a column');
  await expect.poll(() => rowIds(fleet)).toEqual(expectedIds(agents, 'name', 'asc'));
  await page.getByTestId('sort-sequence').click();
  await expect(page.getByTestId('fleet-sort-problem')).toHaveCount(0);
});

test('the keyboard sorts: the headers are buttons in the tab order, with a visible focus ring', async ({ page }) => {
  const agents = await fleetAgents(page);
  const fleet = new FleetPage(page);
  await fleet.goto();
  await page.getByTestId('fleet-filter').focus();
  await page.keyboard.press('Tab');
  const name = page.getByTestId('sort-name');
  await expect(name).toBeFocused();
  await expect(name).toHaveJSProperty('tagName', 'BUTTON');
  expect(await name.evaluate((el) => getComputedStyle(el).outlineStyle)).toBe('solid');
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(/[?&]sort=-name(&|$)/);
  await expect.poll(() => rowIds(fleet)).toEqual(expectedIds(agents, 'name', 'desc'));
  await expect(name).toBeFocused();
  await page.keyboard.press('Tab');
  await page.keyboard.press('Tab');
  await page.keyboard.press('Tab');
  await expect(page.getByTestId('sort-last_sync')).toBeFocused();
  await page.keyboard.press('Space');
  await expect(page).toHaveURL(/[?&]sort=-last_sync(&|$)/);
  await page.keyboard.press('Space');
  await expect(page).toHaveURL(/[?&]sort=last_sync(&|$)/);
  await expect.poll(() => rowIds(fleet)).toEqual(expectedIds(agents, 'last_sync', 'asc'));
});

test('at 390 px: cards, a sort menu instead of the hidden headers, a full-width filter, no sideways scroll', async ({ page }) => {
  const agents = await fleetAgents(page);
  await page.setViewportSize({ width: 390, height: 844 });
  const fleet = new FleetPage(page);
  await fleet.goto();
  const menu = page.getByTestId('fleet-sort-select');
  await expect(menu).toBeVisible();
  // The hidden header row's buttons take no focus on a phone.
  await expect(page.getByTestId('sort-name')).toBeHidden();
  await page.getByTestId('fleet-filter').focus();
  await page.keyboard.press('Tab');
  await expect(menu).toBeFocused();
  await menu.selectOption({ label: 'Changed (7 days), most first' });
  await expect(page).toHaveURL(/[?&]sort=-changed(&|$)/);
  await expect.poll(() => rowIds(fleet)).toEqual(expectedIds(agents, 'changed', 'desc'));
  await page.getByTestId('fleet-filter').fill('zzz-nothing');
  await expect(page.getByTestId('fleet-no-match')).toBeVisible();
  await page.getByTestId('fleet-filter').fill('');
  await expect(fleet.rows).toHaveCount(agents.length);
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  const box = await page.getByTestId('fleet-filter').boundingBox();
  expect(box!.width).toBeGreaterThan(200);
});
