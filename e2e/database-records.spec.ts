import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import Database from 'better-sqlite3';
import type { APIRequestContext } from '@playwright/test';
import { settle } from './every-page';
import { expect, test } from './fixtures';
import { WorkspacePage } from './pages/workspace-page';
import { untarGz } from './untar';
import { formatBytes } from '@/lib/ui/format';

interface AgentJson { id: string; name: string; runtime: string; latest_sequence: number | null }

async function agentNamed(request: APIRequestContext, name: string): Promise<AgentJson> {
  const agents = (await (await request.get('/api/agents')).json()) as AgentJson[];
  const agent = agents.find((a) => a.name === name);
  if (!agent) throw new Error(`no agent ${name} in the seed`);
  return agent;
}

test('a ZeroClaw workspace shows its brain.db rows as a table linked to their lineage, and downloads that brain.db', async ({ page, request }) => {
  const scout = await agentNamed(request, 'scout');
  expect(scout.runtime).toBe('zeroclaw');
  const api = await (await request.get(`/api/agents/${scout.id}/workspace/records`)).json();
  expect(api.total).toBeGreaterThan(0);

  const workspace = new WorkspacePage(page);
  await workspace.goto(scout.id);
  const table = page.getByTestId('database-records');
  await expect(table).toContainText('data/memory/brain.db');
  await expect(page.getByTestId('database-total')).toHaveText(`${api.total} ${api.total === 1 ? 'row' : 'rows'} at #${scout.latest_sequence}`);
  const rows = page.getByTestId('database-row');
  await expect(rows).toHaveCount(Math.min(api.total, 200));
  const first = api.items[0] as { key: string; category: string; content: string; seq: number; record_id: string };
  const row = rows.first();
  await expect(row.getByTestId('database-row-key')).toHaveText(first.key);
  await expect(row).toContainText(first.category);
  await expect(row.getByTestId('database-row-seq')).toHaveText(`#${first.seq}`);
  // The schema sidecar of the raw channel is not listed: restore writes no such file.
  expect((await workspace.treePaths()).some((p) => /\.alf-.*-schema\.json$/.test(p))).toBe(false);

  // The download holds the brain.db those rows are written into: the same rows, only this agent's.
  const download = await workspace.download('tar.gz');
  const files = await untarGz(fs.readFileSync(await download.path()));
  const dbFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'lineage-e2e-brain-')), 'brain.db');
  fs.writeFileSync(dbFile, files.get('data/memory/brain.db')!);
  const db = new Database(dbFile, { readonly: true });
  try {
    expect((db.prepare('SELECT count(*) AS n FROM memories').get() as { n: number }).n).toBe(api.total);
    expect(db.prepare('SELECT alias FROM agents').all()).toEqual([{ alias: 'scout' }]);
    expect(db.prepare('SELECT content FROM memories WHERE key = ?').get(first.key)).toEqual({ content: first.content });
  } finally {
    db.close();
  }

  // The file tree lists that brain.db too: its size in the download, what it is, and a way to its rows.
  const entry = page.getByTestId('tree-database');
  await expect(entry).toHaveAttribute('data-path', 'data/memory/brain.db');
  await expect(entry.getByTestId('tree-database-size')).toHaveText(formatBytes(files.get('data/memory/brain.db')!.byteLength));
  await expect(entry.getByTestId('tree-database-label')).toHaveText(`database — rebuilt from records at #${scout.latest_sequence}`);
  const database = (await (await request.get(`/api/agents/${scout.id}/workspace/database?seq=0`)).json()) as { path: string; size: number; seq: number };
  expect(database).toMatchObject({ path: 'data/memory/brain.db', seq: 0 });
  expect([400, 404]).toContain((await request.get(`/api/agents/${scout.id}/workspace/database?seq=999`)).status());
  await entry.click();
  await expect(page).toHaveURL(/#database-records$/);
  await expect(table).toBeInViewport();

  await row.getByTestId('database-row-key').click();
  await page.getByTestId('lineage-page').waitFor();
  await expect(page).toHaveURL(new RegExp(`/memories/${first.record_id}`));
});

test('at 360 px each database row is a card, and the page does not scroll sideways', async ({ page, request }) => {
  const scout = await agentNamed(request, 'scout');
  await page.setViewportSize({ width: 360, height: 800 });
  const workspace = new WorkspacePage(page);
  await workspace.goto(scout.id);
  const row = page.getByTestId('database-row').first();
  await row.waitFor();
  // A card: the header row is hidden and the cells are labelled.
  await expect(page.getByTestId('database-table').locator('thead')).toHaveCSS('position', 'absolute');
  await expect(row.locator('td[data-label="Category"]')).toBeVisible();
  const wide = await page.evaluate(() => document.documentElement.scrollWidth);
  expect(wide).toBeLessThanOrEqual(360);
});

test('a Hermes workspace shows its state.db sessions', async ({ page, request }) => {
  const agents = (await (await request.get('/api/agents')).json()) as AgentJson[];
  const hermes = agents.find((a) => a.runtime === 'hermes' && a.latest_sequence !== null)!;
  const api = await (await request.get(`/api/agents/${hermes.id}/workspace/records`)).json();
  const workspace = new WorkspacePage(page);
  await workspace.goto(hermes.id);
  await expect(page.getByTestId('database-records')).toContainText('state.db');
  await expect(page.getByTestId('database-row')).toHaveCount(Math.min(api.total, 200));
  const entry = page.getByTestId('tree-database');
  await expect(entry).toHaveAttribute('data-path', 'state.db');
  await expect(entry.getByTestId('tree-database-label')).toHaveText(`database — rebuilt from records at #${hermes.latest_sequence}`);
  const files = await untarGz(fs.readFileSync(await (await workspace.download('tar.gz')).path()));
  await expect(entry.getByTestId('tree-database-size')).toHaveText(formatBytes(files.get('state.db')!.byteLength));
  const openclaw = agents.find((a) => a.runtime === 'openclaw' && a.latest_sequence !== null)!;
  expect(await (await request.get(`/api/agents/${openclaw.id}/workspace/database`)).json()).toMatchObject({ path: null, size: null });
});

for (const scheme of ['light', 'dark'] as const) {
  test(`the database tables are axe-clean at 390 and 1440 px (${scheme})`, async ({ page, request }) => {
    test.setTimeout(240_000); // four pages with axe, as a11y.spec allows for its runs
    const agents = (await (await request.get('/api/agents')).json()) as AgentJson[];
    await page.emulateMedia({ colorScheme: scheme });
    const found: string[] = [];
    for (const runtime of ['zeroclaw', 'hermes']) {
      const agent = agents.find((a) => a.runtime === runtime && a.latest_sequence !== null)!;
      for (const width of [390, 1440]) {
        await page.setViewportSize({ width, height: 900 });
        await page.goto(`/agents/${agent.id}/workspace`);
        await page.getByTestId('database-row').first().waitFor({ timeout: 60_000 });
        await settle(page);
        const result = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
        for (const v of result.violations) found.push(`${runtime} ${width}px: ${v.id} ×${v.nodes.length}: ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(' | ')}`);
      }
    }
    expect(found, found.join('\n')).toEqual([]);
  });
}
