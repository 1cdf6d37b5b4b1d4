/**
 * The fleet's sort and filter over names a workspace chose: markup, a right-to-left override, digits. A name is text:
 * shown as SafeName shows it (a hidden character as a `U+XXXX` badge), found by the filter as text (`<img` finds the
 * agent named with an `<img>` tag, and no element is made of it), sorted as a reader expects (`hm-2` before `hm-10`).
 *
 * Its own `lineage serve` on its own data directory (e2e/own-server.ts), as e2e/agent-name.spec.ts: such agents in the
 * shared one would be in every other spec's fleet.
 */
import { expect, test as base } from './fixtures';
import { namedWorkspace, withOwnServer } from './own-server';

const HTML = '<img src=x onerror=alert(1)>';
const OVERRIDE = 'invoice\u202Egpj.exe';
const NAMES = [HTML, OVERRIDE, 'hm-10', 'hm-2', 'Émile'];

const test = base.extend<{ fleet: { url: string; ids: Map<string, string> } }>({
  fleet: async ({}, use) => {
    const workspaces = NAMES.map((name, i) => namedWorkspace(name, `## Note\nAgent ${i}.\n`));
    await withOwnServer('fleet-names', workspaces, ({ url, agentIds }) => use({ url, ids: new Map(NAMES.map((name, i) => [name, agentIds[i]!])) }));
  },
});

test('names with markup, a hidden character and digits: sorted as read, filtered as text, shown badged', async ({ page, fleet }) => {
  test.setTimeout(240_000);
  const dialogs: string[] = [];
  page.on('dialog', (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  const id = (name: string) => fleet.ids.get(name)!;
  const rows = page.getByTestId('fleet-row');
  const order = () => rows.evaluateAll((els) => els.map((e) => e.getAttribute('data-agent-id')));

  await page.goto(fleet.url);
  await page.getByTestId('fleet-table').waitFor();
  // Name, A to Z: markup's `<` first, digits by value, É beside E.
  await expect.poll(order).toEqual([HTML, 'Émile', 'hm-2', 'hm-10', OVERRIDE].map(id));
  await page.getByTestId('sort-name').click();
  await expect.poll(order).toEqual([OVERRIDE, 'hm-10', 'hm-2', 'Émile', HTML].map(id));

  const table = page.getByTestId('fleet-table');
  await expect(table.locator('img')).toHaveCount(0);
  await expect(page.locator(`[data-agent-id="${id(HTML)}"]`).getByTestId('agent-link')).toHaveText(HTML);

  const filter = page.getByTestId('fleet-filter');
  await filter.fill('<img src');
  await expect.poll(order).toEqual([id(HTML)]);
  await expect(page.getByTestId('fleet-count')).toHaveText(`1 of ${NAMES.length} agents`);
  await expect(table.locator('img')).toHaveCount(0);
  await filter.fill('onerror=alert(1)>');
  await expect.poll(order).toEqual([id(HTML)]);

  // The override is a badge, and the filter finds the name by the text around it or by the badge.
  await filter.fill('invoicegpj');
  await expect.poll(order).toEqual([id(OVERRIDE)]);
  const link = page.locator(`[data-agent-id="${id(OVERRIDE)}"]`).getByTestId('agent-link');
  await expect(link.getByTestId('hidden-char')).toHaveText('U+202E');
  expect(await link.textContent()).not.toContain('\u202E');
  await filter.fill('u+202e');
  await expect.poll(order).toEqual([id(OVERRIDE)]);

  // Markup in the text finds nothing it does not hold, and the empty state says it as text.
  await filter.fill('<b>hm</b>');
  await expect(rows).toHaveCount(0);
  await expect(page.getByTestId('fleet-no-match')).toContainText('No agent matches “<b>hm</b>”');
  await expect(page.getByTestId('fleet-no-match').locator('b')).toHaveCount(0);
  await filter.fill('HM-');
  await expect.poll(order).toEqual(['hm-10', 'hm-2'].map(id));
  await expect(page).toHaveURL(/[?&]sort=-name&q=HM-$/);
  expect(dialogs).toEqual([]);
});
