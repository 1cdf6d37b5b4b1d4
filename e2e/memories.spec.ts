import { expect, FACTS, test } from './fixtures';
import { AgentPage } from './pages/agent-page';

test('the memories at an earlier sequence, and a tag filter, live in the URL', async ({ page, seed }) => {
  const agent = new AgentPage(page);
  await agent.goto(seed.agentId, 'memories');
  await expect(agent.records.first()).toBeVisible();
  await expect(agent.records.getByText(FACTS.xssHeading, { exact: true })).toBeVisible();

  // The pasted snippet arrived at sequence 3: at sequence 2 it is not there yet.
  const at = page.getByTestId('memories-at');
  await at.fill('2');
  await at.press('Enter');
  await expect(page).toHaveURL(/[?&]at=2(&|$)/);
  await expect(page.getByTestId('records-total')).toContainText('live at #2');
  await expect(agent.records.getByText(FACTS.lineageHeading, { exact: true })).toBeVisible();
  await expect(agent.records.getByText(FACTS.xssHeading, { exact: true })).toHaveCount(0);

  // A tag narrows the list to that tier; the sequence stays.
  const tag = page.getByTestId('filter-tag');
  await tag.fill('tier:warm');
  await tag.press('Enter');
  await expect(page).toHaveURL(/tag=tier%3Awarm/);
  await expect(page).toHaveURL(/[?&]at=2(&|$)/);
  await expect(agent.records.getByText('Clusters', { exact: true })).toBeVisible();
  await expect(agent.records.getByText(FACTS.lineageHeading, { exact: true })).toHaveCount(0);

  await page.goBack();
  await expect(agent.records.getByText(FACTS.lineageHeading, { exact: true })).toBeVisible();
});
