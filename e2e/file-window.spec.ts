/**
 * One workspace file at fleet scale (issue 20 §5): the file view, its blame and its compare draw a
 * bounded window of lines ("show more" reaches the rest, never more than MAX_LINES rows at once); a
 * link to a memory's section deep in the file (`#record-<id>`) opens the window there; "Compare
 * with" is a sequence field with shortcuts, not a list of every sequence; a folder of more files
 * than the tree draws shows the rest on request. Seeds: Lyra's glossary (1,005 sections, ~4,000
 * lines), Orion's catalog (2,100 sections, 1,000 updated at #1) and 150 notes in one folder.
 */
import type { APIRequestContext, Locator, Page } from '@playwright/test';
import { MAX_LINES } from '@/lib/ui/line-window';
import { TREE_FILES } from '@/components/workspace/FileTree';
import { expect, FACTS, test } from './fixtures';
import { WorkspacePage } from './pages/workspace-page';

const elements = (page: Page) => page.evaluate(() => document.getElementsByTagName('*').length);
const drawnLines = (content: Locator) => content.locator('[data-line]').count();

/** The record id of the section headed `heading` in `file`, from the records API (every page). */
async function recordId(request: APIRequestContext, agentId: string, file: string, heading: string): Promise<string> {
  for (let cursor: string | null = null; ; ) {
    const url: string = `/api/agents/${agentId}/records?file=${encodeURIComponent(file)}&limit=1000${cursor ? `&cursor=${cursor}` : ''}`;
    const body = (await (await request.get(url)).json()) as { items: { record_id: string; heading: string | null }[]; next_cursor: string | null };
    const found = body.items.find((r) => r.heading === heading);
    if (found) return found.record_id;
    if (!body.next_cursor) throw new Error(`no record headed ${heading} in ${file}`);
    cursor = body.next_cursor;
  }
}

/** Presses `button` until it is gone, checking after each press that `windowed` moved and draws at most MAX_LINES rows. */
async function pressUntilGone(button: Locator, windowed: Locator, attribute: string, rows: () => Promise<number>): Promise<void> {
  while ((await button.count()) > 0) {
    const before = await windowed.getAttribute(attribute);
    await button.click();
    await expect(windowed).not.toHaveAttribute(attribute, before ?? '');
    expect(await rows()).toBeLessThanOrEqual(MAX_LINES);
  }
}

test.describe('a file longer than the window', () => {
  test.setTimeout(180_000);

  test('draws the first lines with every record counted; "show more" walks to the last section and "show earlier" back, never more than MAX_LINES rows', async ({ page, seed }) => {
    const { agentId, file, records } = seed.large;
    const workspace = new WorkspacePage(page);
    await workspace.goto(agentId, `?file=${file}`);
    await expect(page.getByTestId('file-record-count')).toHaveText(`${records} memory records`);
    const content = workspace.content;
    await expect(content).toHaveAttribute('data-lines', '1-400');
    const total = Number(await content.getAttribute('data-total'));
    expect(total).toBeGreaterThan(MAX_LINES);
    expect(await drawnLines(content)).toBe(400);
    await expect(workspace.sections.first().getByTestId('section-lineage-link')).toContainText('Term 0001');
    expect(await workspace.sections.count()).toBeLessThan(records);
    expect(await elements(page)).toBeLessThanOrEqual(5000);
    await expect(page.getByTestId('file-earlier')).toHaveCount(0);
    await expect(page.getByTestId('file-later')).toContainText(`(${total - 400} below)`);

    await pressUntilGone(page.getByTestId('file-later'), content, 'data-lines', () => drawnLines(content));
    await expect(content).toHaveAttribute('data-lines', `${total - MAX_LINES + 1}-${total}`);
    // The last page of the records API was read: the file's last section is marked.
    await expect(workspace.sections.last().getByTestId('section-lineage-link')).toContainText(`Term ${String(records).padStart(4, '0')}`);
    await expect(content.locator('[data-line="1"]')).toHaveCount(0);

    await pressUntilGone(page.getByTestId('file-earlier'), content, 'data-lines', () => drawnLines(content));
    await expect(content.locator('[data-line="1"]')).toHaveText('## Term 0001');
    await expect(content).toHaveAttribute('data-lines', `1-${MAX_LINES}`);
  });

  test('a link to a section deep in the file opens the window there and scrolls to it, in the file and in its blame', async ({ page, request, seed }) => {
    const { agentId, file } = seed.large;
    const deep = await recordId(request, agentId, file, 'Term 0900');
    const workspace = new WorkspacePage(page);
    await workspace.goto(agentId, `?file=${file}#record-${encodeURIComponent(deep)}`);
    const section = page.locator(`[data-testid="record-section"][data-record-id="${deep}"]`);
    await expect(section).toBeInViewport();
    await expect(section).toHaveAttribute('data-target', 'true');
    await expect(section.getByTestId('section-lineage-link')).toContainText('Term 0900');
    expect(await drawnLines(workspace.content)).toBeLessThanOrEqual(MAX_LINES);
    await expect(workspace.content.locator('[data-line="1"]')).toHaveCount(0);
    await expect(page.getByTestId('file-earlier')).toBeVisible();

    // A permalink followed within the page (the hash changes, no reload) reaches a section out of the window too.
    const other = await recordId(request, agentId, file, 'Term 0005');
    await page.evaluate((id) => (window.location.hash = `record-${encodeURIComponent(id)}`), other);
    const near = page.locator(`[data-testid="record-section"][data-record-id="${other}"]`);
    await expect(near).toBeInViewport();
    // Each section's own anchor link is that permalink.
    await expect(near.getByTestId('section-anchor')).toHaveAttribute('href', `#record-${encodeURIComponent(other)}`);

    await workspace.goto(agentId, `?file=${file}&view=blame#record-${encodeURIComponent(deep)}`);
    const block = page.locator(`[data-testid="blame-block"][id="record-${encodeURIComponent(deep)}"]`);
    await expect(block).toBeInViewport();
    await expect(block).toContainText('Term 0900 is glossary entry number 900.');
    expect(await page.getByTestId('file-blame').locator('[data-line]').count()).toBeLessThanOrEqual(MAX_LINES);
  });

  test('a compare of 1,000 changed sections draws a window of rows, folds the unchanged tail, and shows more of it on request', async ({ page, seed }) => {
    const { orion } = seed.paging!;
    const workspace = new WorkspacePage(page);
    await workspace.goto(orion.agentId, `?seq=1&file=${orion.file}&compare=0`);
    const rows = page.getByTestId('compare-rows');
    await expect(rows).toHaveAttribute('data-rows', '1-400');
    expect(await elements(page)).toBeLessThanOrEqual(5000);
    const count = () => rows.locator('[data-gutter], [data-testid="compare-fold"]').count();
    await pressUntilGone(page.getByTestId('compare-later'), rows, 'data-rows', count);
    // The unchanged catalog entries after the last revised one are one fold, shown 40 lines at a time.
    const fold = page.getByTestId('compare-fold').last();
    await expect(fold).toContainText('Show 40 more unchanged lines');
    const hidden = Number((await fold.textContent())?.match(/\((\d+) hidden\)/)?.[1]);
    expect(hidden).toBeGreaterThan(40);
    const lastShown = await rows.locator('[data-gutter]').last().getAttribute('data-gutter');
    await fold.click();
    await expect(page.getByTestId('compare-fold').last()).toContainText(`(${hidden - 40} hidden)`);
    // The 40 lines drawn come right after the last one shown before, and the window still holds at most MAX_LINES rows.
    const newNo = (gutter: string | null) => Number(gutter?.trim().split(/\s+/)[1]);
    expect(newNo(await rows.locator('[data-gutter]').last().getAttribute('data-gutter'))).toBe(newNo(lastShown) + 40);
    expect(await count()).toBeLessThanOrEqual(MAX_LINES);
    await expect(page.getByTestId('compare-delete').last()).toContainText(`is catalog entry number ${orion.updated}.`);
    await expect(page.getByTestId('compare-insert').last()).toContainText(`is catalog entry revised ${orion.updated}.`);
  });
});

test('"Compare with" takes a sequence number or a shortcut, says in words what it cannot compare, and lists no sequences', async ({ page, seed }) => {
  const workspace = new WorkspacePage(page);
  await workspace.goto(seed.agentId, `?seq=4&file=${FACTS.workspaceFile}`);
  await expect(workspace.sections.first()).toBeVisible();
  await expect(page.getByTestId('file-viewer').locator('option')).toHaveCount(0);

  // From the keyboard: the field, then Enter.
  const field = page.getByLabel('Compare with');
  await field.fill('0');
  await field.press('Enter');
  await expect(page).toHaveURL(/[?&]compare=0(&|$)/);
  await expect(page.getByTestId('compare-delete').first()).toContainText('tabs over spaces');
  await page.getByTestId('compare-clear').click();
  await expect(page).not.toHaveURL(/compare=/);
  await expect(workspace.content).toBeVisible();

  await field.fill('999');
  await field.press('Enter');
  await expect(page.getByTestId('compare-problem')).toHaveText(`there is no sequence #999: the latest is #${seed.steps.length - 1}`);
  await expect(field).toHaveAttribute('aria-invalid', 'true');
  await expect(page).not.toHaveURL(/compare=/);
  await field.fill('4');
  await field.press('Enter');
  await expect(page.getByTestId('compare-problem')).toHaveText('#4 is the sequence shown');

  // The shortcuts: the sync before, and the sequence before the last change of the file's memories (#3 edited the gateway).
  await page.getByTestId('compare-previous').click();
  await expect(page).toHaveURL(/[?&]compare=3(&|$)/);
  await expect(page.getByTestId('compare-problem')).toHaveCount(0);
  await page.getByTestId('compare-clear').click();
  await expect(page.getByTestId('compare-last-change')).toContainText('#2');
  await page.getByTestId('compare-last-change').click();
  await expect(page).toHaveURL(/[?&]compare=2(&|$)/);
  await expect(page.getByTestId('compare-insert').filter({ hasText: '10.42.0.9' })).toHaveCount(1);
});

test('a folder of more files than the tree draws shows the rest on request; the open file is drawn wherever it sorts', async ({ page, seed }) => {
  const { orion } = seed.paging!;
  const last = [...orion.notes].sort().at(-1)!;
  const workspace = new WorkspacePage(page);
  await workspace.goto(orion.agentId, `?file=${encodeURIComponent(last)}`);
  const notes = page.locator('[data-testid="tree-file"][data-path^="memory/vault/"]');
  await expect(notes).toHaveCount(TREE_FILES + 1);
  await expect(page.locator(`[data-testid="tree-file"][data-path="${last}"]`)).toHaveAttribute('aria-current', 'true');
  await page.getByTestId('tree-more').click();
  await expect(notes).toHaveCount(orion.notes.length);
  await expect(page.getByTestId('tree-more')).toHaveCount(0);
});
