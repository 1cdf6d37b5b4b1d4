import fs from 'node:fs';
import { expect, FACTS, test } from './fixtures';
import { readSnapshot } from '@/lib/core/archive';
import { untarGz } from './untar';
import { unzip } from './unzip';
import { MAX_LINES } from '@/lib/ui/line-window';
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

test('a file with more records than a page of the records API has every record section marked', async ({ page, seed }) => {
  const { agentId, file, records } = seed.large;
  const workspace = new WorkspacePage(page);
  await workspace.goto(agentId, `?file=${file}`);
  await expect(page.getByTestId('file-record-count')).toHaveText(`${records} memory records`);
  // The file is drawn a window at a time (e2e/file-window.spec.ts): every section of its last lines is marked.
  const later = page.getByTestId('file-later');
  while ((await later.count()) > 0) await later.click();
  const drawn = await workspace.sections.count();
  await expect(workspace.sections.last().getByTestId('section-lineage-link')).toContainText(`Term ${records}`);
  // Each term is 4 lines (heading, blank, text, blank): the last MAX_LINES lines hold a quarter as many sections.
  expect(drawn).toBeGreaterThanOrEqual(Math.floor(MAX_LINES / 4) - 1);
});

test('the .zip holds the same files as the .tar.gz, and the .alf is a snapshot of that sequence', async ({ page, seed }) => {
  const seq = FACTS.workspaceSeq;
  const expected = seed.steps[seq]!;
  const workspace = new WorkspacePage(page);
  await workspace.goto(seed.agentId, `?seq=${seq}`);

  const zip = await workspace.download('zip');
  expect(zip.suggestedFilename()).toBe(`${FACTS.agentName}-seq${seq}.zip`);
  const zipped = await unzip(fs.readFileSync(await zip.path()));
  const tarred = await untarGz(fs.readFileSync(await (await workspace.download('tar.gz')).path()));
  expect([...zipped.keys()].sort()).toEqual(Object.keys(expected).sort());
  expect([...zipped.keys()].sort()).toEqual([...tarred.keys()].sort());
  for (const [path, text] of Object.entries(expected)) expect(zipped.get(path)?.toString('utf8'), path).toBe(text);

  const alf = await workspace.download('alf');
  expect(alf.suggestedFilename()).toBe(`${FACTS.agentName}-seq${seq}.alf`);
  const snapshot = await readSnapshot(new Uint8Array(fs.readFileSync(await alf.path())));
  const raw = new Map([...snapshot.raw].map(([key, bytes]) => [key.replace(/^raw\/openclaw\//, ''), Buffer.from(bytes).toString('utf8')]));
  for (const [path, text] of Object.entries(expected)) expect(raw.get(path), path).toBe(text);
  const prefs = snapshot.records.find((r) => String(r.content).includes('Maya prefers'));
  expect(String(prefs?.content)).toContain('spaces over tabs (two of them)');
});

test('the slider moves through sequences from the keyboard, and the URL and file tree follow', async ({ page, seed }) => {
  const latest = seed.steps.length - 1;
  const workspace = new WorkspacePage(page);
  await workspace.goto(seed.agentId);
  const slider = page.getByTestId('workspace-slider');
  const at = (seq: number) => page.locator(`[data-testid="workspace-page"][data-seq="${seq}"]`);
  const tree = async () => (await workspace.treePaths()).sort();
  await expect(at(latest)).toBeVisible();

  await slider.focus();
  await slider.press('ArrowLeft');
  await expect(page).toHaveURL(new RegExp(`[?&]seq=${latest - 1}(&|$)`));
  await expect(at(latest - 1)).toBeVisible();
  await expect.poll(tree).toEqual(Object.keys(seed.steps[latest - 1]!).sort());

  await slider.press('Home');
  await expect(page).toHaveURL(/[?&]seq=0(&|$)/);
  await expect(at(0)).toBeVisible();
  await expect.poll(tree).toEqual(Object.keys(seed.steps[0]!).sort());
  expect(await tree()).not.toEqual(Object.keys(seed.steps[latest]!).sort());

  await slider.press('End');
  await expect(at(latest)).toBeVisible();
  await expect(page).not.toHaveURL(/[?&]seq=/);
  await expect.poll(tree).toEqual(Object.keys(seed.steps[latest]!).sort());
});

test('the sequence field and the back button move through sequences', async ({ page, seed }) => {
  const workspace = new WorkspacePage(page);
  await workspace.goto(seed.agentId, `?seq=0&file=${FACTS.workspaceFile}`);
  await expect(workspace.content).toContainText('tabs over spaces');
  await workspace.chooseSequence(3);
  await expect(workspace.content).toContainText('10.42.0.9');
  await page.goBack();
  await expect(page.locator('[data-testid="workspace-page"][data-seq="0"]')).toBeVisible();
  await expect(workspace.content).toContainText('10.42.0.7');
});

test('a file the address names that does not exist is said with its hidden characters shown, not acting on the page', async ({ page, seed }) => {
  const workspace = new WorkspacePage(page);
  await workspace.goto(seed.agentId, `?seq=0&file=${encodeURIComponent('memory/invoice\u202Egpj.md')}`);
  const missing = page.getByTestId('file-missing');
  await expect(missing).toContainText('memory/invoice[U+202E]gpj.md does not exist at #0');
  expect(await missing.textContent()).not.toContain('\u202E');
});

test('"as of" a date opens the sequence that was in force then', async ({ page, seed, request }) => {
  const res = await request.get(`/api/agents/${seed.agentId}/sequences`);
  const { items } = (await res.json()) as { items: { seq: number; synced_at: string }[] };
  const at = (seq: number) => Date.parse(items.find((i) => i.seq === seq)!.synced_at);
  const between = new Date((at(1) + at(2)) / 2).toISOString().slice(0, 16);
  const workspace = new WorkspacePage(page);
  await workspace.goto(seed.agentId);
  await expect(page.getByTestId('crumb-page')).toHaveText('Workspace');
  // A UTC time typed as the field asks for it (not the browser's local datetime-local format).
  const field = page.getByTestId('workspace-as-of');
  await expect(field).toHaveAttribute('type', 'text');
  await expect(field).toHaveAttribute('placeholder', 'YYYY-MM-DD HH:MM');
  await field.fill(between.replace('T', ' '));
  await page.getByTestId('workspace-as-of-go').click();
  await expect(page.locator('[data-testid="workspace-page"][data-seq="1"]')).toBeVisible();
  await expect(page).toHaveURL(/seq=1/);
});

test('an "as of" link is shareable, and a time before the first sync or not a time says so', async ({ page, seed, request }) => {
  const res = await request.get(`/api/agents/${seed.agentId}/sequences`);
  const { items } = (await res.json()) as { items: { seq: number; synced_at: string }[] };
  const at = (seq: number) => Date.parse(items.find((i) => i.seq === seq)!.synced_at);
  const between = new Date((at(2) + at(3)) / 2).toISOString().slice(0, 16);
  const workspace = new WorkspacePage(page);
  await workspace.goto(seed.agentId, `?as_of=${between}&file=${FACTS.workspaceFile}`);
  await expect(page.locator('[data-testid="workspace-page"][data-seq="2"]')).toBeVisible();
  await expect(page).toHaveURL(/seq=2/);
  await expect(page).not.toHaveURL(/as_of=/);
  expect(new URL(page.url()).searchParams.get('file')).toBe(FACTS.workspaceFile);

  const before = new Date(at(0) - 86_400_000).toISOString().slice(0, 16);
  await workspace.goto(seed.agentId, `?as_of=${before}`);
  await expect(page.getByTestId('workspace-as-of-error')).toHaveText('no sync yet at that time');
  await workspace.goto(seed.agentId, '?as_of=yesterday');
  await expect(page.getByTestId('workspace-as-of-error')).toContainText('is not a date and time');
});

test.describe('before the page has hydrated', () => {
  test('the sequence and "as of" fields are plain forms: submitting them lands in the URL', async ({ page, seed }) => {
    // The app's scripts never load, so the page stays as the server streamed it: what a user sees
    // and types into before hydration.
    await page.route('**/_next/static/chunks/**', (route) => route.abort());
    await page.goto(`/agents/${seed.agentId}/workspace?file=${FACTS.workspaceFile}`);
    await page.getByTestId('workspace-seq').fill('3');
    await page.getByTestId('workspace-seq').press('Enter');
    await page.waitForURL(/seq=3/);
    expect(new URL(page.url()).searchParams.get('file')).toBe(FACTS.workspaceFile);
    await expect(page.locator('[data-testid="workspace-page"][data-seq="3"]')).toBeAttached();

    await page.getByTestId('workspace-as-of').fill('2026-01-02T03:04');
    await page.getByTestId('workspace-as-of-go').click();
    await page.waitForURL(/as_of=/);
    const params = new URL(page.url()).searchParams;
    expect(params.get('as_of')).toBe('2026-01-02T03:04');
    expect(params.get('seq')).toBeNull();
    expect(params.get('file')).toBe(FACTS.workspaceFile);
  });

  test('what was typed before hydration survives it, and Enter afterwards uses it', async ({ page, seed }) => {
    // Hold the app's scripts until the field has been typed into, then let the page hydrate. Only
    // scripts: its stylesheet must load, since the browser runs no inline script after a pending
    // stylesheet, and the workspace arrives in a streamed boundary that an inline script reveals.
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    await page.route('**/_next/static/chunks/**', async (route) => {
      if (route.request().resourceType() === 'script') await gate;
      await route.continue();
    });
    // 'commit': the load event would wait for the held scripts.
    await page.goto(`/agents/${seed.agentId}/workspace`, { waitUntil: 'commit' });
    await page.getByTestId('workspace-seq').fill('3');
    release();
    await page.waitForLoadState('networkidle');
    await expect(page.getByTestId('workspace-seq')).toHaveValue('3');
    await page.getByTestId('workspace-seq').press('Enter');
    await expect(page.locator('[data-testid="workspace-page"][data-seq="3"]')).toBeVisible();
    await expect(page).toHaveURL(/seq=3/);
  });
});
