/**
 * The Blame view of a workspace file (issue 20 §3) on the seeded Vega agent: "Editor preferences"
 * born at #0 and edited at #1, #3, #5; "Gateway" edited at #3; the daily log archived unchanged at #4
 * (a move: its sections keep their birth at #0); the file's own lines from its last raw change.
 */
import AxeBuilder from '@axe-core/playwright';
import { movedFile, settle } from './every-page';
import { expect, FACTS, test } from './fixtures';
import { WorkspacePage } from './pages/workspace-page';

const block = (page: import('@playwright/test').Page, heading: string) =>
  page.getByTestId('blame-block').filter({ has: page.getByTestId('blame-lineage-link').getByText(heading, { exact: true }) });

test('after edits and a move, the Blame view shows each section\'s born and changed sequences', async ({ page, seed }) => {
  const workspace = new WorkspacePage(page);
  await workspace.goto(seed.agentId, `?file=${FACTS.workspaceFile}`);
  await page.getByTestId('file-view-mode').getByRole('radio', { name: 'Blame' }).click();
  await expect(page).toHaveURL(/view=blame/);
  await expect(page.getByTestId('file-blame')).toBeVisible();

  const blocks = page.getByTestId('blame-block');
  await expect(blocks.first()).toHaveAttribute('data-kind', 'file');
  await expect(blocks.first()).toHaveAttribute('data-changed', '5');
  await expect(blocks.first()).toContainText('# MEMORY');
  const prefs = block(page, FACTS.lineageHeading);
  await expect(prefs).toHaveAttribute('data-born', '0');
  await expect(prefs).toHaveAttribute('data-changed', '5');
  await expect(prefs.getByTestId('blame-born')).toHaveText('#0');
  await expect(prefs.getByTestId('blame-changed')).toHaveText('#5');
  await expect(prefs).toContainText('no trailing whitespace in commits');
  const gateway = block(page, 'Gateway');
  await expect(gateway).toHaveAttribute('data-born', '0');
  await expect(gateway).toHaveAttribute('data-changed', '3');
  await expect(gateway.getByTestId('blame-moved')).toHaveCount(0);

  // The links: the section's lineage, and the sequence it changed at.
  await expect(gateway.getByTestId('blame-changed')).toHaveAttribute('href', `/agents/${seed.agentId}/sequences/3`);
  await gateway.getByTestId('blame-lineage-link').click();
  await expect(page).toHaveURL(new RegExp(`/agents/${seed.agentId}/memories/`));
  await expect(page.getByText('Gateway').first()).toBeVisible();
});

test('a section moved from another file keeps its original birth, with the move beside it', async ({ page, seed }) => {
  const file = movedFile(seed);
  const workspace = new WorkspacePage(page);
  await workspace.goto(seed.agentId, `?file=${encodeURIComponent(file)}&view=blame`);
  const standup = block(page, 'Morning standup');
  await expect(standup).toHaveAttribute('data-born', '0');
  await expect(standup).toHaveAttribute('data-changed', '0');
  await expect(standup).toHaveAttribute('data-moved', '4');
  await expect(standup.getByTestId('blame-moved-seq')).toHaveText('#4');
  // Born in the file it was moved from.
  await expect(standup.getByTestId('blame-gutter')).toContainText(/in memory\/\s*episodic\//);
});

test('an earlier sequence blames that sequence\'s file; the view is reached and left from the keyboard', async ({ page, seed }) => {
  const workspace = new WorkspacePage(page);
  await workspace.goto(seed.agentId, `?file=${FACTS.workspaceFile}&seq=3`);
  const fileRadio = page.getByTestId('file-view-mode').getByRole('radio', { name: 'File' });
  await fileRadio.focus();
  await page.keyboard.press('ArrowRight');
  await expect(page).toHaveURL(/view=blame/);
  await expect(block(page, FACTS.lineageHeading)).toHaveAttribute('data-changed', '3');
  await expect(block(page, 'Team')).toHaveAttribute('data-born', '0');
  await expect(block(page, 'Team')).toHaveAttribute('data-changed', '0');
  await page.keyboard.press('ArrowLeft');
  await expect(page).not.toHaveURL(/view=blame/);
  await expect(workspace.sections.first()).toBeVisible();
});

test('at 360 px the gutter stacks above its lines and nothing scrolls sideways', async ({ page, seed }) => {
  await page.setViewportSize({ width: 360, height: 800 });
  const workspace = new WorkspacePage(page);
  await workspace.goto(seed.agentId, `?file=${FACTS.workspaceFile}&view=blame`);
  const prefs = block(page, FACTS.lineageHeading);
  await expect(prefs).toBeVisible();
  const gutter = await prefs.getByTestId('blame-gutter').boundingBox();
  const firstLine = await prefs.getByText('## Editor preferences').boundingBox();
  expect(gutter && firstLine && gutter.y + gutter.height <= firstLine.y).toBe(true);
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
});

// MEMORY.md's blame is in e2e/every-page.ts (axe at three widths in both schemes, overflow at 360 px); this is the moved file's.
for (const scheme of ['light', 'dark'] as const) {
  test(`axe finds no WCAG 2.1 AA violation in the blame of a moved file at 390 px (${scheme})`, async ({ page, seed }) => {
    await page.setViewportSize({ width: 390, height: 900 });
    await page.emulateMedia({ colorScheme: scheme });
    await page.goto(`/agents/${seed.agentId}/workspace?file=${encodeURIComponent(movedFile(seed))}&view=blame`);
    await expect(page.getByTestId('blame-moved').first()).toBeVisible();
    await settle(page);
    const result = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
    expect(result.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)).toEqual([]);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  });
}
