import { expect, FACTS, screenshot, test } from './fixtures';
import { AgentPage } from './pages/agent-page';
import { FleetPage } from './pages/fleet-page';
import { LineagePage } from './pages/lineage-page';
import { SearchPage } from './pages/search-page';
import { WorkspacePage } from './pages/workspace-page';

test.describe('a screenshot of every page', () => {
  test('fleet', async ({ page }, testInfo) => {
    const fleet = new FleetPage(page);
    await fleet.goto();
    await expect(fleet.rows.first()).toBeVisible();
    await screenshot(page, testInfo, 'fleet');
  });

  test('agent tabs', async ({ page, seed }, testInfo) => {
    const agent = new AgentPage(page);
    await agent.goto(seed.agentId);
    await expect(agent.sequences.first()).toBeVisible();
    await screenshot(page, testInfo, 'agent-timeline');
    await agent.openTab('memories');
    await expect(agent.records.first()).toBeVisible();
    await screenshot(page, testInfo, 'agent-memories');
    await agent.openTab('changes');
    await expect(page.getByTestId('change-row').first()).toBeVisible();
    await screenshot(page, testInfo, 'agent-changes');
  });

  test('sequence', async ({ page, seed }, testInfo) => {
    await page.goto(`/agents/${seed.agentId}/sequences/4`);
    await expect(page.getByTestId('op-card').first()).toBeVisible();
    await screenshot(page, testInfo, 'sequence');
  });

  test('lineage', async ({ page, seed }, testInfo) => {
    const agent = new AgentPage(page);
    await agent.goto(seed.agentId, 'memories');
    await agent.openMemory(FACTS.lineageHeading);
    await expect(new LineagePage(page).versions.first()).toBeVisible();
    await screenshot(page, testInfo, 'lineage');
  });

  test('lineage of a ZeroClaw memory (named by its key)', async ({ page }, testInfo) => {
    const fleet = new FleetPage(page);
    await fleet.goto();
    const agent = await fleet.openAgent('scout');
    await agent.openTab('memories');
    await agent.records.first().getByTestId('record-link').click();
    await expect(page.getByTestId('identity-key')).toBeVisible();
    await screenshot(page, testInfo, 'lineage-zeroclaw');
  });

  test('search', async ({ page }, testInfo) => {
    const search = new SearchPage(page);
    await search.goto('10.42.0');
    await expect(search.first).toBeVisible();
    await screenshot(page, testInfo, 'search');
  });

  test('workspace', async ({ page, seed }, testInfo) => {
    const workspace = new WorkspacePage(page);
    await workspace.goto(seed.agentId, `?seq=3&file=${FACTS.workspaceFile}`);
    await expect(workspace.sections.first()).toBeVisible();
    await screenshot(page, testInfo, 'workspace');
    await workspace.compareWith(0);
    await screenshot(page, testInfo, 'workspace-compare');
  });

  test('error state', async ({ page }, testInfo) => {
    await page.goto('/agents/00000000-0000-0000-0000-000000000000');
    await expect(page.getByTestId('not-found')).toBeVisible();
    await screenshot(page, testInfo, 'not-found');
  });

  test('a sequence that does not exist', async ({ page, seed }, testInfo) => {
    await page.goto(`/agents/${seed.agentId}/sequences/${seed.steps.length + 40}`);
    await expect(page.getByTestId('not-found-latest')).toBeVisible();
    await screenshot(page, testInfo, 'sequence-not-found');
  });
});
