import fs from 'node:fs';
import { expect, FACTS, test } from './fixtures';
import { untarGz } from './untar';
import { WorkspacePage } from './pages/workspace-page';

test('the workspace at a chosen sequence: tree, a file with its record sections, compare, and a byte-exact .tar.gz', async ({ page, seed }) => {
  const seq = FACTS.workspaceSeq;
  const expected = seed.steps[seq]!;
  const workspace = new WorkspacePage(page);
  await workspace.goto(seed.agentId);
  await workspace.chooseSequence(seq);
  await expect(page).toHaveURL(new RegExp(`seq=${seq}`));
  await expect(workspace.treeFiles).toHaveCount(Object.keys(expected).length);
  expect((await workspace.treePaths()).sort()).toEqual(Object.keys(expected).sort());

  await workspace.openFile(FACTS.workspaceFile);
  await expect(workspace.content).toContainText('two of them) and a dark theme');
  await expect(workspace.sections).toHaveCount(3);
  await expect(workspace.sections.first().getByTestId('section-lineage-link')).toContainText(FACTS.lineageHeading);

  await workspace.compareWith(0);
  await expect(page.getByTestId('compare-delete')).toContainText('tabs over spaces');
  await expect(page.getByTestId('compare-insert')).toContainText('spaces over tabs (two of them)');

  const download = await workspace.download('tar.gz');
  expect(download.suggestedFilename()).toBe(`${FACTS.agentName}-seq${seq}.tar.gz`);
  const files = await untarGz(fs.readFileSync(await download.path()));
  expect([...files.keys()].sort()).toEqual(Object.keys(expected).sort());
  for (const [path, text] of Object.entries(expected)) expect(files.get(path)?.toString('utf8'), path).toBe(text);
});

test('the slider and the back button move through sequences', async ({ page, seed }) => {
  const workspace = new WorkspacePage(page);
  await workspace.goto(seed.agentId, `?seq=0&file=${FACTS.workspaceFile}`);
  await expect(workspace.content).toContainText('tabs over spaces');
  await workspace.chooseSequence(3);
  await expect(workspace.content).toContainText('10.42.0.9');
  await page.goBack();
  await expect(page.locator('[data-testid="workspace-page"][data-seq="0"]')).toBeVisible();
  await expect(workspace.content).toContainText('10.42.0.7');
});

test('"as of" a date opens the sequence that was in force then', async ({ page, seed, request }) => {
  const res = await request.get(`/api/agents/${seed.agentId}/sequences`);
  const { items } = (await res.json()) as { items: { seq: number; synced_at: string }[] };
  const at = (seq: number) => Date.parse(items.find((i) => i.seq === seq)!.synced_at);
  const between = new Date((at(1) + at(2)) / 2).toISOString().slice(0, 16);
  const workspace = new WorkspacePage(page);
  await workspace.goto(seed.agentId);
  await page.getByTestId('workspace-as-of').fill(between);
  await page.getByTestId('workspace-as-of-go').click();
  await expect(page.locator('[data-testid="workspace-page"][data-seq="1"]')).toBeVisible();
  await expect(page).toHaveURL(/seq=1/);
});
