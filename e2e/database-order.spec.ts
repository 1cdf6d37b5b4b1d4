/**
 * The database table of a ZeroClaw workspace (its `brain.db` rows) lists its rows in the API's order, record id
 * ascending — and says so: the Key column's header and the note above the table name the order, and each row shows its
 * record id under its key, so the reader sees why a row comes where it does. Once the table showed keys alone, in an
 * order no column of it explained.
 */
import type { APIRequestContext } from '@playwright/test';
import { expect, test } from './fixtures';
import { WorkspacePage } from './pages/workspace-page';

interface AgentJson { id: string; name: string; runtime: string }
interface RowsJson { total: number; items: { record_id: string; key: string | null }[] }

async function agentNamed(request: APIRequestContext, name: string): Promise<AgentJson> {
  const agents = (await (await request.get('/api/agents')).json()) as AgentJson[];
  const agent = agents.find((a) => a.name === name);
  if (!agent) throw new Error(`no agent ${name} in the seed`);
  return agent;
}

test('the brain.db rows come by record id, ascending; the header says it and each row shows its id', async ({ page, request }) => {
  const scout = await agentNamed(request, 'scout');
  expect(scout.runtime).toBe('zeroclaw');
  const api = (await (await request.get(`/api/agents/${scout.id}/workspace/records`)).json()) as RowsJson;
  expect(api.items.length).toBeGreaterThan(2);
  const ids = api.items.map((i) => i.record_id);
  // Code-unit order, as both backends compare ids (SQLite's binary collation, PostgreSQL's COLLATE "C").
  expect(ids).toEqual([...ids].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
  // The keys alone would not tell it: in this seed their order differs from the ids'.
  const keys = api.items.map((i) => i.key ?? '');
  expect(keys).not.toEqual([...keys].sort());

  const workspace = new WorkspacePage(page);
  await workspace.goto(scout.id);
  const header = page.getByTestId('database-order');
  await expect(header).toHaveText(/^Key · by record id ↑$/);
  await expect(header).toHaveAttribute('aria-sort', 'ascending');
  await expect(page.getByTestId('database-order-note')).toHaveText('Listed by record id (shown under each key), ascending.');
  const rows = page.getByTestId('database-row');
  await expect(rows).toHaveCount(api.items.length);
  const shown = await rows.evaluateAll((els) => els.map((e) => e.getAttribute('data-record-id')));
  expect(shown).toEqual(ids);
  const visibleIds = await page.getByTestId('database-row-id').evaluateAll((els) => els.map((e) => e.textContent));
  expect(visibleIds).toEqual(ids.map((id) => id.slice(0, 8)));
  expect(await page.getByTestId('database-row-key').allTextContents()).toEqual(keys);
});
