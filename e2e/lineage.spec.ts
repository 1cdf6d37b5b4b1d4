import { expect, FACTS, test } from './fixtures';
import { AgentPage } from './pages/agent-page';
import { FleetPage } from './pages/fleet-page';
import { LineagePage } from './pages/lineage-page';

test('a memory with several versions shows every version and word diffs with insertions and deletions', async ({ page, seed }) => {
  const agent = new AgentPage(page);
  await agent.goto(seed.agentId, 'memories');
  await agent.openMemory(FACTS.lineageHeading);

  const lineage = new LineagePage(page);
  await expect(lineage.title).toHaveText(FACTS.lineageHeading);
  await expect(lineage.versions).toHaveCount(FACTS.lineageVersions.length);
  expect(await lineage.versionSeqs()).toEqual([...FACTS.lineageVersions].reverse());
  await expect(page.getByTestId('identity-born')).toContainText('#0');
  await expect(page.getByTestId('identity-key')).toHaveCount(0);
  const recordId = await page.getByTestId('identity-card').locator('[data-full-id]').getAttribute('data-full-id');
  await expect(page.getByTestId('crumb-page')).toHaveText(`Memory ${recordId!.slice(0, 8)}`);
  await expect(page.getByTestId('crumb-memories')).toHaveAttribute('href', `/agents/${seed.agentId}?tab=memories`);

  const update = lineage.version(1);
  await expect(update.getByTestId('diff-delete')).toContainText('tabs over spaces');
  await expect(update.getByTestId('diff-insert')).toContainText('spaces over tabs (two of them)');
  const later = lineage.version(5);
  await expect(later.getByTestId('diff-insert')).toContainText('no trailing whitespace in commits');
  await expect(later.getByTestId('diff-delete')).toHaveCount(1);

  await lineage.show('full');
  await expect(page).toHaveURL(/view=full/);
  await expect(page.getByTestId('word-diff')).toHaveCount(0);
  await expect(lineage.version(5).getByTestId('memory-markdown')).toContainText('format-on-save everywhere');
  await page.goBack();
  await expect(page.getByTestId('word-diff')).toHaveCount(FACTS.lineageVersions.length);

  await lineage.version(1).getByTestId('version-workspace-link').click();
  await expect(page).toHaveURL(/\/workspace\?seq=1&file=MEMORY.md/);
  await expect(page.getByTestId('file-content')).toContainText('two of them) and a dark theme');
});

test('a memory moved into the archive links back to the record it came from, and that one forward', async ({ page, seed }) => {
  const agent = new AgentPage(page);
  await agent.goto(seed.agentId, 'memories');
  await agent.openMemory('Morning standup');
  const lineage = new LineagePage(page);
  await expect(page.getByTestId('identity-card')).toContainText('memory/archive/');
  const from = page.getByTestId('moved-from');
  await expect(from).toContainText('memory/episodic/');
  await from.click();
  await expect(page.getByTestId('identity-deleted')).toBeVisible();
  await expect(lineage.versions.first()).toHaveAttribute('data-op', 'delete');
  await expect(lineage.version(4).getByTestId('tombstone')).toContainText('Discussed the gateway migration window.');
  await page.getByTestId('moved-to').click();
  await expect(page.getByTestId('identity-card')).toContainText('memory/archive/');
});

test('a ZeroClaw memory has no heading: its lineage shows its key and is titled by it', async ({ page, request }) => {
  const agents = (await (await request.get('/api/agents')).json()) as { id: string; name: string; runtime: string }[];
  const scout = agents.find((a) => a.name === 'scout');
  expect(scout?.runtime).toBe('zeroclaw');
  const fleet = new FleetPage(page);
  await fleet.goto();
  const agent = await fleet.openAgent('scout');
  await agent.openTab('memories');
  const row = agent.records.first();
  const recordId = await row.getAttribute('data-record-id');
  const versions = (await (await request.get(`/api/agents/${scout!.id}/records/${recordId}`)).json()).versions as { record: { raw_source_format: { key: string } } }[];
  const key = versions.at(-1)!.record.raw_source_format.key;
  expect(key).toMatch(/^[a-z0-9_]+$/);
  await expect(row.getByTestId('record-link')).toHaveText(key); // the list names it by its key too

  await row.getByTestId('record-link').click();
  const lineage = new LineagePage(page);
  await page.getByTestId('lineage-page').waitFor();
  await expect(page.getByTestId('identity-key')).toContainText(key);
  await expect(lineage.title).toHaveText(key);
  await expect(page).toHaveTitle(`${key} · scout · ALF Lineage`);
});

test('the breadcrumb leads back to the Memories tab, and an unknown memory is a 404 page with ways back', async ({ page, seed }) => {
  const agent = new AgentPage(page);
  await agent.goto(seed.agentId, 'memories');
  await agent.openMemory(FACTS.lineageHeading);
  await page.getByTestId('crumb-memories').click();
  await expect(page).toHaveURL(new RegExp(`/agents/${seed.agentId}\\?tab=memories$`));
  await expect(agent.records.getByText(FACTS.lineageHeading, { exact: true })).toBeVisible();

  const unknown = '00000000-0000-4000-8000-000000000000';
  const response = await page.goto(`/agents/${seed.agentId}/memories/${unknown}`);
  expect(response?.status()).toBe(404);
  await expect(page.getByTestId('not-found-title')).toHaveText('No memory with this id');
  await expect(page.getByTestId('not-found')).toContainText(unknown);
  await expect(page.getByTestId('lineage-page')).toHaveCount(0);
  await expect(page.getByTestId('crumb-page')).toHaveText('Memory 00000000');
  await page.getByTestId('not-found-memories').click();
  await expect(page).toHaveURL(/\?tab=memories$/);
  await expect(agent.records.first()).toBeVisible();
});
