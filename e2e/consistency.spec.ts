/** One behaviour everywhere: 404s without dead downloads, errors in words, titles, feed diffs. */
import { expect, test } from './fixtures';

test('the workspace at a sequence past the latest is a 404 page without download buttons', async ({ page, seed }) => {
  await page.goto(`/agents/${seed.agentId}/workspace?seq=999`);
  await expect(page.getByTestId('workspace-not-found')).toBeVisible();
  await expect(page.getByTestId('not-found-title')).toHaveText('Sequence #999 does not exist');
  await expect(page.getByTestId('download-menu')).toHaveCount(0);
  await page.getByTestId('not-found-latest').click();
  await expect(page.getByTestId('download-menu')).toBeVisible();
});

test('an over-long search is refused in words, not in the validator notation', async ({ page }) => {
  await page.goto(`/search?q=${'x'.repeat(600)}`);
  await expect(page.getByText('The query is too long: at most 500 characters, this one has 600.')).toBeVisible();
  await expect(page.getByText(/Too big|expected string/)).toHaveCount(0);
  const api = await page.request.get(`/api/search?q=${'x'.repeat(600)}`);
  expect(api.status()).toBe(400);
  expect(((await api.json()) as { error: string }).error).toBe('The query is too long: at most 500 characters, this one has 600.');
});

test('page titles name the agent and the query', async ({ page, seed }) => {
  await page.goto(`/agents/${seed.agentId}/sequences/4`);
  await expect(page).toHaveTitle(`Sequence #4 · ${seed.agentName} · ALF Lineage`);
  await page.goto(`/agents/${seed.agentId}/workspace?seq=3`);
  await expect(page).toHaveTitle(`Workspace · ${seed.agentName} · ALF Lineage`);
  await page.goto('/search?q=10.42.0');
  await expect(page).toHaveTitle('“10.42.0” · Search · ALF Lineage');
});

test('an updated row of the change feed shows the changed words', async ({ page, seed }) => {
  await page.goto(`/agents/${seed.agentId}?tab=changes`);
  const diff = page.locator('[data-testid=change-row][data-op=update] [data-testid=change-diff]').filter({ hasText: '10.42.0.9' });
  await expect(diff.first()).toBeVisible();
  await expect(diff.first().getByTestId('diff-delete')).toHaveText('10.42.0.7');
  await expect(diff.first().getByTestId('diff-insert')).toHaveText('10.42.0.9');
});
