import AxeBuilder from '@axe-core/playwright';
import { settle } from './every-page';
import { expect, FACTS, test } from './fixtures';
import { AgentPage } from './pages/agent-page';

test('two sequences picked on the timeline open their comparison: created, updated (working-buffer.md is one whole-file memory), moved and deleted memories, files added, changed and removed; the file diffs are drawn in the browser', async ({ page, seed, browser }) => {
  const agent = new AgentPage(page);
  await agent.goto(seed.agentId);
  const pick = (seq: number) => agent.sequences.and(page.locator(`[data-seq="${seq}"]`)).first().getByTestId('compare-pick');
  await pick(3).check();
  await expect(page.getByTestId('compare-bar')).toContainText('#3 selected');
  // From the keyboard: Space on the focused checkbox.
  await pick(5).focus();
  await page.keyboard.press('Space');
  await expect(pick(5)).toBeChecked();
  const go = page.getByTestId('compare-selected');
  await expect(go).toHaveText('Compare #3 → #5');
  await go.click();

  await expect(page).toHaveURL(new RegExp(`/agents/${seed.agentId}/compare\\?from=3&to=5$`));
  await expect(page).toHaveTitle(`Compare #3 → #5 · ${FACTS.agentName} · ALF Lineage`);
  await expect(page.getByTestId('compare-title')).toHaveText('Compare #3 → #5');
  const yesterdayLog = Object.keys(seed.steps[3]!).find((p) => p.startsWith('memory/episodic/'))!;
  const archived = Object.keys(seed.steps[4]!).find((p) => p.startsWith('memory/archive/'))!;
  const todayLog = Object.keys(seed.steps[4]!).find((p) => p.startsWith('memory/episodic/'))!;
  const titles = (kind: string) => page.getByTestId(`compare-${kind}`).getByTestId('compare-memory-title');

  await expect(titles('created')).toHaveText(['Morning']);
  await expect(titles('updated')).toHaveText([FACTS.lineageHeading, 'Working buffer']);
  await expect(titles('deleted')).toHaveText(['Team']);
  await expect(titles('moved')).toHaveText(['Afternoon', 'Morning standup']);
  const move = page.getByTestId('compare-moved').getByTestId('compare-memory').first();
  await expect(move.getByTestId('compare-move')).toContainText(yesterdayLog.split('/').pop()!);
  await expect(move.getByTestId('compare-move')).toContainText(archived.split('/').pop()!);
  await expect(move.getByTestId('compare-text-unchanged')).toBeVisible();

  const prefs = page.getByTestId('compare-updated').getByTestId('compare-memory').first();
  await expect(prefs.getByTestId('diff-insert')).toContainText(['no trailing whitespace in commits']);
  await expect(prefs.getByTestId('diff-delete')).toHaveCount(1);

  const files = (kind: string) => page.getByTestId('compare-files').locator(`[data-testid=compare-file][data-kind=${kind}]`);
  await expect(files('removed')).toHaveCount(1);
  await expect(files('removed')).toContainText(yesterdayLog.split('/').pop()!);
  await expect(files('added')).toHaveCount(2);
  await expect(files('added').filter({ hasText: todayLog.split('/').pop()! })).toHaveCount(1);
  await expect(files('changed').filter({ hasText: 'MEMORY.md' }).getByTestId('diff-delete')).toContainText(['Team']);
  await expect(page.getByTestId('diff-pending')).toHaveCount(0);
  // A changed file's diff is worked out in the browser: the server's page (no script run) holds its place, not its diff.
  const noScript = await browser.newContext({ javaScriptEnabled: false, storageState: await page.context().storageState() });
  const served = await noScript.newPage();
  await served.goto(`/agents/${seed.agentId}/compare?from=3&to=5`);
  const servedFile = served.getByTestId('compare-files').locator('[data-testid=compare-file][data-kind=changed]').filter({ hasText: 'MEMORY.md' });
  await expect(servedFile.getByTestId('diff-pending')).toHaveCount(1);
  await expect(servedFile.getByTestId('diff-delete')).toHaveCount(0);
  // The memories' diffs of the first screen are the server's (paging.spec: the ones below it are the browser's).
  const servedPrefs = served.getByTestId('compare-updated').getByTestId('compare-memory').first();
  await expect(servedPrefs.getByTestId('compare-memory-title')).toHaveText(FACTS.lineageHeading);
  await expect(servedPrefs.getByTestId('diff-insert')).toContainText(['no trailing whitespace in commits']);
  await noScript.close();

  await page.getByTestId('crumb-timeline').click();
  await expect(page.getByTestId('timeline-tab')).toBeVisible();
});

test('the compare form and the workspace header lead to a comparison; bad sequences are said in words', async ({ page, seed }) => {
  await page.goto(`/agents/${seed.agentId}/workspace?seq=4`);
  await page.getByTestId('workspace-compare').click();
  await expect(page).toHaveURL(/\/compare\?from=3&to=4$/);
  await expect(page.getByTestId('compare-moved').getByTestId('compare-memory')).toHaveCount(2);

  await page.getByTestId('compare-from').fill('5');
  await page.getByTestId('compare-to').fill('1');
  await page.getByTestId('compare-to').press('Enter');
  await expect(page).toHaveURL(/\/compare\?from=5&to=1$/);
  await expect(page.getByTestId('compare-error')).toHaveText(/The first sequence \(from, #5\) comes after the second \(to, #1\)/);

  // A sequence past the latest is the page's own 404 (compare/not-found.tsx), its reason in words.
  expect((await page.goto(`/agents/${seed.agentId}/compare?from=1&to=999`))?.status()).toBe(404);
  await expect(page.getByTestId('compare-error')).toHaveText(/Sequence #999 does not exist: the sequences of Vega run from 0 to 5\./);
  // The address alone asks nothing yet: no error, the form holds the last sync's change.
  await page.goto(`/agents/${seed.agentId}/compare`);
  await expect(page.getByTestId('compare-error')).toHaveCount(0);
  await expect(page.getByTestId('compare-prompt')).toHaveText(/^Pick two sequences: the workspace's net change between them/);
  await expect(page.getByTestId('compare-from')).toHaveValue(String(seed.steps.length - 2));
  await expect(page.getByTestId('compare-to')).toHaveValue(String(seed.steps.length - 1));
  await page.getByTestId('compare-submit').click();
  await expect(page).toHaveURL(new RegExp(`/compare\\?from=${seed.steps.length - 2}&to=${seed.steps.length - 1}$`));
  await expect(page.getByTestId('compare-title')).toHaveText(`Compare #${seed.steps.length - 2} → #${seed.steps.length - 1}`);
  await page.goto(`/agents/${seed.agentId}/compare?from=x&to=2`);
  await expect(page.getByTestId('compare-error')).toHaveText('The first sequence (from) must be a non-negative integer.');
  const api = await page.request.get(`/api/agents/${seed.agentId}/compare?from=2`);
  expect(api.status()).toBe(400);
  expect(((await api.json()) as { error: string }).error).toBe('The second sequence (to) is required.');
});

test('lineage: any two versions of a memory compared as a word diff, from the keyboard', async ({ page, seed }) => {
  const agent = new AgentPage(page);
  await agent.goto(seed.agentId, 'memories');
  await agent.openMemory(FACTS.lineageHeading);
  const panel = page.getByTestId('version-compare');
  await panel.locator('summary').focus();
  await page.keyboard.press('Enter');
  // Oldest and newest at first: #0 → #5.
  const diff = panel.getByTestId('version-compare-diff');
  await expect(diff.getByTestId('diff-delete')).toContainText(['tabs over spaces']);
  await expect(diff.getByTestId('diff-insert').filter({ hasText: 'no trailing whitespace in commits' })).toHaveCount(1);
  await panel.getByTestId('version-compare-from').selectOption({ index: 1 });
  await panel.getByTestId('version-compare-to').focus();
  await page.keyboard.press('ArrowUp');
  await expect(panel.getByTestId('version-compare-to')).toHaveValue('2');
  // #1 → #3: the theme became "a light theme by day" and format-on-save came in; nothing of #5 yet.
  await expect(diff.getByTestId('diff-insert').filter({ hasText: 'format-on-save' })).toHaveCount(1);
  await expect(diff).not.toContainText('no trailing whitespace');
  await panel.getByTestId('version-compare-to').selectOption({ index: 1 });
  await expect(panel.getByTestId('version-compare-same')).toHaveText('The text is the same in #1 and #1.');
});

test('at 360 px, light and dark: the compare page, the timeline with two picked and the lineage\'s version compare are axe-clean and never wider than the window', async ({ page, seed }) => {
  test.setTimeout(240_000);
  await page.setViewportSize({ width: 360, height: 800 });
  const found: string[] = [];
  const check = async (name: string) => {
    await settle(page);
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    if (width > 360) found.push(`${name}: ${width} px wide`);
    const result = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
    for (const v of result.violations) found.push(`${name}: ${v.id} ×${v.nodes.length} ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(' | ')}`);
  };
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await page.goto(`/agents/${seed.agentId}/compare?from=0&to=${seed.steps.length - 1}`);
    await check(`${scheme} compare 0→latest`);
    await page.goto(`/agents/${seed.agentId}/compare?from=4&to=1`);
    await check(`${scheme} compare, reversed`);
    await page.goto(`/agents/${seed.agentId}`);
    await page.getByTestId('compare-pick').nth(0).check();
    await page.getByTestId('compare-pick').nth(2).check();
    await check(`${scheme} timeline, two picked`);
    const agent = new AgentPage(page);
    await agent.goto(seed.agentId, 'memories');
    await agent.openMemory(FACTS.lineageHeading);
    await page.getByTestId('version-compare').locator('summary').click();
    await check(`${scheme} lineage, version compare open`);
  }
  expect(found, found.join('\n')).toEqual([]);
});
