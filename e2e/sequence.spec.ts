import { expect, FACTS, test } from './fixtures';
import { AgentPage } from './pages/agent-page';
import { SequencePage } from './pages/sequence-page';

/** The workspace files that differ between two steps of the seeded life (added, changed or gone). */
function changedFiles(before: Record<string, string>, after: Record<string, string>): string[] {
  const paths = new Set([...Object.keys(before), ...Object.keys(after)]);
  return [...paths].filter((p) => before[p] !== after[p]).sort();
}

test('a sync shows its update as a word diff against the previous version, next to the raw files it changed', async ({ page, seed }) => {
  const sequence = new SequencePage(page);
  await sequence.goto(seed.agentId, 1);
  await expect(page.getByTestId('crumb-page')).toHaveText('Sequence #1');
  await expect(page.getByTestId('crumb-timeline')).toHaveAttribute('href', `/agents/${seed.agentId}`);

  const update = sequence.opCard('update', FACTS.lineageHeading);
  await expect(update).toHaveCount(1);
  await expect(update.getByTestId('diff-delete')).toContainText('tabs over spaces');
  await expect(update.getByTestId('diff-insert')).toContainText('spaces over tabs (two of them)');
  await expect(page.locator('[data-testid="op-card"]:not([data-op="update"])')).toHaveCount(0);

  const expected = changedFiles(seed.steps[0]!, seed.steps[1]!);
  expect(expected).toEqual([FACTS.workspaceFile]);
  expect(await sequence.rawPaths()).toEqual(expected);
  const raw = sequence.rawFile(FACTS.workspaceFile);
  const recordId = await update.getAttribute('data-record-id');
  await expect(raw.getByTestId('raw-file-op')).toHaveAttribute('href', `#op-${recordId}`);
  await expect(raw.getByTestId('raw-file-op')).toContainText(FACTS.lineageHeading);
});

test('a move between files is one op under Moved, naming both files and its source with the full id', async ({ page, seed }) => {
  // Sequence 4 archives yesterday's daily log: its records move into memory/archive/YYYY/MM/.
  const sequence = new SequencePage(page);
  await sequence.goto(seed.agentId, 4);
  await expect(page.getByTestId('crumb-page')).toHaveText('Sequence #4');
  const from = Object.keys(seed.steps[3]!).find((p) => p.startsWith('memory/episodic/'))!;
  const to = Object.keys(seed.steps[4]!).find((p) => p.startsWith('memory/archive/'))!;
  await expect(page.getByTestId('ops-move').getByTestId('op-card')).toHaveCount(2);
  await expect(page.getByTestId('ops-delete')).toHaveCount(0);
  await expect(page.getByTestId('op-count-moved')).toHaveText('→2');
  await expect(page.getByTestId('op-count-deleted')).toHaveText('−0');
  const standup = sequence.opCard('move', 'Morning standup');
  await expect(standup.getByTestId('op-move')).toHaveText(`moved from ${from} → ${to}`);
  await expect(standup.getByTestId('op-badge')).toHaveText('moved');
  const moved = standup.getByTestId('op-moved-from');
  const fullId = await moved.getAttribute('title');
  expect(fullId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  await expect(moved).toHaveText(`moved from ${fullId!.slice(0, 8)}`);

  const expected = changedFiles(seed.steps[3]!, seed.steps[4]!);
  expect(await sequence.rawPaths()).toEqual(expected);
  await expect(sequence.rawFile(to).getByTestId('raw-file-path')).toHaveAttribute('title', to);
  // The move is listed under both files, once each.
  for (const path of [from, to]) await expect(sequence.rawFile(path).getByTestId('raw-file-op')).toHaveCount(2);

  await standup.getByTestId('op-move-from').click();
  await expect(page).toHaveURL(/\/workspace\?seq=3&file=/);
  await page.goBack();
  await sequence.opCard('move', 'Morning standup').getByTestId('op-moved-from').click();
  await page.getByTestId('lineage-page').waitFor();
  await expect(page).toHaveURL(new RegExp(`/memories/${fullId}$`));
  await expect(page.getByTestId('move-step')).toContainText(`moved from ${from} to ${to} at #4`);
});

test('the timeline counts moves apart, in their own colour', async ({ page, seed }) => {
  const agent = new AgentPage(page);
  await agent.goto(seed.agentId);
  const row = page.locator('[data-testid="sequence-row"][data-seq="4"]');
  await expect(row.getByTestId('op-count-moved')).toHaveText('→2');
  await expect(row.getByTestId('op-count-deleted')).toHaveText('−0');
  await expect(page.getByTestId('timeline-tab')).toContainText('moved');
  // The chart stacks a bar series per op: moves are drawn in their own colour.
  await expect(page.getByTestId('activity-chart').locator('path[fill="#7c3aed"]').first()).toBeAttached();
});

test('clicking a row of the timeline opens that sequence', async ({ page, seed }) => {
  const agent = new AgentPage(page);
  await agent.goto(seed.agentId);
  const row = page.locator('[data-testid="sequence-row"][data-seq="3"]');
  await row.locator('td').nth(3).click();
  await expect(page).toHaveURL(new RegExp(`/agents/${seed.agentId}/sequences/3$`));
  await expect(page.getByTestId('sequence-page')).toContainText('Sequence #3');
  await expect(page.getByTestId('prev-sequence')).toHaveText('← #2');
  await page.goBack();
  await expect(page.getByTestId('timeline-tab')).toBeVisible();
});

test('a sequence past the latest is a 404 page, with no links to sequences that do not exist', async ({ page, seed }) => {
  const latest = seed.steps.length - 1;
  const missing = latest + 90;
  const response = await page.goto(`/agents/${seed.agentId}/sequences/${missing}`);
  expect(response?.status()).toBe(404);
  await expect(page.getByTestId('not-found-title')).toHaveText(`Sequence #${missing} does not exist`);
  await expect(page.getByTestId('not-found')).toContainText(`${FACTS.agentName} has synced sequences #0 to #${latest}.`);
  await expect(page.getByTestId('agent-name')).toHaveText(FACTS.agentName);
  for (const href of [`/sequences/${missing - 1}`, `/sequences/${missing + 1}`, `seq=${missing}`]) {
    await expect(page.locator(`a[href*="${href}"]`), href).toHaveCount(0);
  }
  await expect(page.getByTestId('prev-sequence')).toHaveCount(0);
  await expect(page.getByTestId('sequence-workspace')).toHaveCount(0);

  await page.getByTestId('not-found-latest').click();
  await expect(page).toHaveURL(new RegExp(`/sequences/${latest}$`));
  await expect(page.getByTestId('op-card').first()).toBeVisible();
});
