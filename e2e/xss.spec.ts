import type { Page } from '@playwright/test';
import { expect, FACTS, test } from './fixtures';
import { AgentPage } from './pages/agent-page';
import { LineagePage } from './pages/lineage-page';
import { SearchPage } from './pages/search-page';
import { WorkspacePage } from './pages/workspace-page';

const SCRIPT = '<script>alert(1)</script>';
const IMG = '<img src=x onerror=alert(1)>';

/** Fails the test if any dialog opens; returns the list so the test can assert it stayed empty. */
function watchDialogs(page: Page): string[] {
  const dialogs: string[] = [];
  page.on('dialog', (dialog) => {
    dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  return dialogs;
}

test('raw HTML in a memory is shown as text and never runs, in every view', async ({ page, seed }) => {
  const dialogs = watchDialogs(page);
  const agent = new AgentPage(page);
  await agent.goto(seed.agentId, 'memories');
  await expect(agent.records.filter({ hasText: FACTS.xssHeading })).toContainText(SCRIPT);
  await agent.openMemory(FACTS.xssHeading);

  const lineage = new LineagePage(page);
  await expect(page.getByTestId('word-diff').first()).toContainText(SCRIPT);
  await lineage.show('full');
  const rendered = page.getByTestId('memory-markdown').first();
  await expect(rendered).toContainText(SCRIPT);
  await expect(rendered).toContainText(IMG);
  await expect(rendered.locator('img, script')).toHaveCount(0);

  const search = new SearchPage(page);
  await search.goto('onerror=alert(1)');
  await expect(page.getByTestId('first-snippet')).toContainText(IMG);

  const workspace = new WorkspacePage(page);
  await workspace.goto(seed.agentId, '?file=memory/semantic/notes.md');
  await expect(workspace.content).toContainText(SCRIPT);
  await expect(workspace.content.locator('img, script')).toHaveCount(0);

  const raw = await page.request.get(`/api/agents/${seed.agentId}/workspace/file?path=memory/semantic/notes.md`);
  expect(raw.headers()['content-type']).toBe('text/plain; charset=utf-8');
  expect(raw.headers()['x-content-type-options']).toBe('nosniff');

  expect(dialogs).toEqual([]);
});
