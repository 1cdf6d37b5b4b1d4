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
  await expect(page.getByTestId('first-sentence')).toContainText(FACTS.agentName);
  await expect(page.getByTestId('first-snippet').getByTestId('search-hit')).toHaveText(FACTS.searchFact);

  await search.openFirstVersion();
  await expect(page).toHaveURL(new RegExp(`#v${FACTS.searchFactSeq}$`));
  const lineage = new LineagePage(page);
  await expect(lineage.version(FACTS.searchFactSeq)).toContainText(FACTS.searchFact);
  await expect(lineage.version(FACTS.searchFactSeq).getByTestId('op-badge')).toHaveText('created');
});

test('a fact that never appeared says so', async ({ page }) => {
  const search = new SearchPage(page);
  await search.goto('no-such-fact-zq9');
  await expect(page.getByTestId('search-empty')).toBeVisible();
});
