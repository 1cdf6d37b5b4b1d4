import { expect, FACTS, test } from './fixtures';
import { FleetPage } from './pages/fleet-page';
import { LineagePage } from './pages/lineage-page';
import { SearchPage } from './pages/search-page';

test('a fact typed in the header box shows its first appearance and leads to that version', async ({ page }) => {
  const fleet = new FleetPage(page);
  await fleet.goto();
  await fleet.search(FACTS.searchFact);

  const search = new SearchPage(page);
  await expect(search.first).toBeVisible();
  await expect(page.getByTestId('first-seq')).toHaveText(`#${FACTS.searchFactSeq}`);
  await expect(page.getByTestId('first-file')).toHaveText(FACTS.searchFactFile);
  await expect(search.sentence).toContainText(FACTS.agentName);
  await expect(search.hits).toHaveText([FACTS.searchFact]);

  await search.openFirstVersion();
  await expect(page).toHaveURL(new RegExp(`#v${FACTS.searchFactSeq}$`));
  const lineage = new LineagePage(page);
  await expect(lineage.version(FACTS.searchFactSeq)).toContainText(FACTS.searchFact);
  await expect(lineage.version(FACTS.searchFactSeq).getByTestId('op-badge')).toHaveText('created');
});

test('the answer says in words what became of the fact: still present, removed, or its memory deleted', async ({ page }) => {
  const search = new SearchPage(page);
  await search.goto(FACTS.searchFact);
  await expect(search.sentence).toHaveText(new RegExp(`^First appeared in ${FACTS.agentName} at #2 \\(\\w{3} \\d{1,2}\\), in ${FACTS.searchFactFile} — still present at #5$`));

  // The gateway's old address was edited to 10.42.0.9 at sequence 3.
  await search.goto('10.42.0.7');
  await expect(search.sentence).toHaveText(new RegExp(`^First appeared in ${FACTS.agentName} at #0 \\(\\w{3} \\d{1,2}\\), in MEMORY\\.md — removed at #3$`));
  await expect(search.hits).toHaveText(['10.42.0.7']);

  // The team section was dropped from MEMORY.md at sequence 5.
  await search.goto('Jonas owns');
  await expect(search.status).toHaveText('its memory was deleted at #5');
});

test('two words find the version holding both, in any order, each highlighted', async ({ page }) => {
  const fleet = new FleetPage(page);
  await fleet.goto();
  await fleet.search('HAProxy gateway');
  const search = new SearchPage(page);
  await expect(page.getByTestId('first-seq')).toHaveText('#0');
  await expect(page.getByTestId('first-file')).toHaveText('MEMORY.md');
  // The section's heading is part of the memory: "Gateway" is a whole-token match too.
  await expect(search.hits).toHaveText(['Gateway', 'gateway', 'HAProxy']);
  await expect(search.status).toHaveText('still present at #5');
  // The address edit at #3 is a later appearance of the same memory, listed once.
  await expect(search.appearances).toHaveCount(1);
  await expect(search.appearances.first()).toHaveAttribute('data-seq', '3');
  await expect(search.appearances.first().getByTestId('appearance-op')).toHaveText('edited');
});

test('a near miss offers indexed terms as links, and a fact that never appeared says so', async ({ page }) => {
  const search = new SearchPage(page);
  await search.goto('orchid-latice-42');
  await expect(search.empty).toBeVisible();
  await expect(search.suggestions).toHaveText(['orchid-lattice-42']);
  await search.followSuggestion('orchid-lattice-42');
  await expect(page.getByTestId('first-seq')).toHaveText(`#${FACTS.searchFactSeq}`);

  await search.goto('no-such-fact-zq9');
  await expect(search.empty).toBeVisible();
  await expect(search.suggestions).toHaveCount(0);
});

test('the agent filter is the agent asked for: a space around its id is said as no such agent, not searched as that agent', async ({ page, seed }) => {
  await page.goto(`/search?q=${encodeURIComponent(FACTS.searchFact)}&agent=${seed.agentId}`);
  await expect(page.getByTestId('first-seq')).toHaveText(`#${FACTS.searchFactSeq}`);
  await page.goto(`/search?q=${encodeURIComponent(FACTS.searchFact)}&agent=%20${seed.agentId}`);
  const error = page.getByTestId('error-state');
  await expect(error).toContainText('Not found');
  await expect(error).toContainText(`agent  ${seed.agentId} not found`);
  await expect(page.getByTestId('first-seq')).toHaveCount(0);
});
