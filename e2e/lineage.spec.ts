import { expect, FACTS, test } from './fixtures';
import { AgentPage } from './pages/agent-page';
import { FleetPage } from './pages/fleet-page';
import { LineagePage } from './pages/lineage-page';

test('a memory with several versions shows every version and word diffs with insertions and deletions', async ({ page, seed }) => {
  const agent = new AgentPage(page);
  await agent.goto(seed.agentId, 'memories');
  await agent.openMemory(FACTS.lineageHeading);

  const lineage = new LineagePage(page);
  await expect(lineage.title).toHaveText(FACTS.lineageHeading);
  await expect(lineage.versions).toHaveCount(FACTS.lineageVersions.length);
  expect(await lineage.versionSeqs()).toEqual([...FACTS.lineageVersions].reverse());
  await expect(page.getByTestId('identity-born')).toContainText('#0');
  await expect(page.getByTestId('identity-key')).toHaveCount(0);
  const recordId = await page.getByTestId('identity-card').locator('[data-full-id]').getAttribute('data-full-id');
  await expect(page.getByTestId('crumb-page')).toHaveText(`Memory ${recordId!.slice(0, 8)}`);
  await expect(page.getByTestId('crumb-memories')).toHaveAttribute('href', `/agents/${seed.agentId}?tab=memories`);

  const update = lineage.version(1);
  await expect(update.getByTestId('diff-delete')).toContainText('tabs over spaces');
  await expect(update.getByTestId('diff-insert')).toContainText('spaces over tabs (two of them)');
  const later = lineage.version(5);
  await expect(later.getByTestId('diff-insert')).toContainText('no trailing whitespace in commits');
  await expect(later.getByTestId('diff-delete')).toHaveCount(1);

  await lineage.show('full');
  await expect(page).toHaveURL(/view=full/);
  await expect(page.getByTestId('word-diff')).toHaveCount(0);
  await expect(lineage.version(5).getByTestId('memory-markdown')).toContainText('format-on-save everywhere');
  await page.goBack();
  await expect(page.getByTestId('word-diff')).toHaveCount(FACTS.lineageVersions.length);

  await lineage.version(1).getByTestId('version-workspace-link').click();
  await expect(page).toHaveURL(/\/workspace\?seq=1&file=MEMORY.md/);
  await expect(page.getByTestId('file-content')).toContainText('two of them) and a dark theme');
});

type Change = { seq: number; op: string; record_id: string; heading: string | null; origin_file: string | null; from_file: string | null; from_record_id: string | null };
type LineageJson = { chain: string[]; versions: { op: string; seq: number; from_file?: string; to_file?: string; from_record_id?: string; to_record_id?: string }[] };

test('the archived daily log is one move per section in the API: no delete, no create, the same chain from either id', async ({ request, seed }) => {
  // Sequence 4 archives yesterday's daily log unchanged (two sections).
  const changes = async (op: string) => ((await (await request.get(`/api/changes?agent=${seed.agentId}&since=30d&op=${op}`)).json()) as { groups: { changes: Change[] }[] })
    .groups.flatMap((g) => g.changes).filter((c) => c.seq === 4);
  const from = Object.keys(seed.steps[3]!).find((p) => p.startsWith('memory/episodic/'))!;
  const to = Object.keys(seed.steps[4]!).find((p) => p.startsWith('memory/archive/'))!;
  expect(await changes('delete')).toEqual([]);
  const moves = await changes('move');
  expect(moves.map((m) => [m.heading, m.from_file, m.origin_file]).sort()).toEqual([['Afternoon', from, to], ['Morning standup', from, to]]);
  expect((await changes('create')).map((c) => c.origin_file)).not.toContain(to);
  expect((await request.get(`/api/changes?agent=${seed.agentId}&op=moved`)).status()).toBe(400);

  const timeline = (await (await request.get(`/api/agents/${seed.agentId}/sequences`)).json()) as { items: { seq: number; moves: number; deletes: number }[] };
  expect(timeline.items.find((s) => s.seq === 4)).toMatchObject({ moves: 2, deletes: 0 });
  for (const move of moves) {
    const byNew = (await (await request.get(`/api/agents/${seed.agentId}/records/${move.record_id}`)).json()) as LineageJson;
    const byOld = (await (await request.get(`/api/agents/${seed.agentId}/records/${move.from_record_id}`)).json()) as LineageJson;
    expect(byNew.chain).toEqual([move.from_record_id, move.record_id]);
    expect([byOld.chain, byOld.versions]).toEqual([byNew.chain, byNew.versions]);
    expect(byNew.versions.filter((v) => v.op === 'move')).toMatchObject([
      { seq: 4, from_file: from, to_file: to, from_record_id: move.from_record_id, to_record_id: move.record_id },
    ]);
  }
});

test('a memory moved into the archive shows its whole chain, the move as a step, from either of its ids', async ({ page, request, seed }) => {
  const agent = new AgentPage(page);
  await agent.goto(seed.agentId, 'memories');
  await agent.openMemory('Morning standup');
  const lineage = new LineagePage(page);
  const from = Object.keys(seed.steps[3]!).find((p) => p.startsWith('memory/episodic/'))!;
  const to = Object.keys(seed.steps[4]!).find((p) => p.startsWith('memory/archive/'))!;
  await expect(page.getByTestId('identity-file')).toContainText(to);
  await expect(page.getByTestId('identity-born')).toContainText('#0');
  await expect(page.getByTestId('identity-born-file')).toHaveText(from);
  expect(await lineage.versionSeqs()).toEqual([4, 0]);
  const step = lineage.version(4);
  await expect(step).toHaveAttribute('data-op', 'move');
  await expect(step.getByTestId('move-step')).toHaveText(new RegExp(`^moved from ${from} to ${to} at #4 \\(.+\\)$`));
  await expect(page.getByTestId('tombstone')).toHaveCount(0);
  await expect(page.getByTestId('provenance-move')).toContainText(to);

  // The id the memory had before the move shows the same page.
  const oldId = await lineage.version(0).getAttribute('data-record-id');
  const newId = await step.getAttribute('data-record-id');
  expect(oldId).not.toBe(newId);
  const shown = () => lineage.versions.evaluateAll((els) => els.map((e) => [e.getAttribute('data-seq'), e.getAttribute('data-op'), e.getAttribute('data-record-id')]));
  const versions = await shown();
  const stepText = await step.getByTestId('move-step').textContent();
  await lineage.goto(seed.agentId, oldId!);
  await expect(lineage.version(4).getByTestId('move-step')).toHaveText(stepText!);
  expect(await shown()).toEqual(versions);
  await expect(lineage.title).toHaveText('Morning standup');
  await expect(page.getByTestId('identity-file')).toContainText(to);
  await expect(page.getByTestId('identity-status')).not.toContainText('deleted');

  // Each side of the move opens the workspace where that file holds the memory.
  await lineage.version(4).getByTestId('move-from-file').click();
  await expect(page).toHaveURL(new RegExp(`/workspace\\?seq=3&file=${encodeURIComponent(from).replace(/%2F/g, '(/|%2F)')}`));
  await expect(page.getByTestId('file-content')).toContainText('Discussed the gateway migration window.');
  await page.goBack();
  await lineage.version(4).getByTestId('move-to-file').click();
  await expect(page).toHaveURL(/\/workspace\?seq=4&file=/);
  await expect(page.getByTestId('file-content')).toContainText('Discussed the gateway migration window.');
  expect((await request.get(`/api/agents/${seed.agentId}/records/${oldId}`)).status()).toBe(200);
});

test('a ZeroClaw memory has no heading: its lineage shows its key and is titled by it', async ({ page, request }) => {
  const agents = (await (await request.get('/api/agents')).json()) as { id: string; name: string; runtime: string }[];
  const scout = agents.find((a) => a.name === 'scout');
  expect(scout?.runtime).toBe('zeroclaw');
  const fleet = new FleetPage(page);
  await fleet.goto();
  const agent = await fleet.openAgent('scout');
  await agent.openTab('memories');
  const row = agent.records.first();
  const recordId = await row.getAttribute('data-record-id');
  const versions = (await (await request.get(`/api/agents/${scout!.id}/records/${recordId}`)).json()).versions as { record: { raw_source_format: { key: string } } }[];
  const key = versions[0]!.record.raw_source_format.key; // newest first
  expect(key).toMatch(/^[a-z0-9_]+$/);
  await expect(row.getByTestId('record-link')).toHaveText(key); // the list names it by its key too

  await row.getByTestId('record-link').click();
  const lineage = new LineagePage(page);
  await page.getByTestId('lineage-page').waitFor();
  await expect(page.getByTestId('identity-key')).toContainText(key);
  await expect(lineage.title).toHaveText(key);
  await expect(page).toHaveTitle(`${key} · scout · ALF Lineage`);
});

test('the breadcrumb leads back to the Memories tab, and an unknown memory is a 404 page with ways back', async ({ page, seed }) => {
  const agent = new AgentPage(page);
  await agent.goto(seed.agentId, 'memories');
  await agent.openMemory(FACTS.lineageHeading);
  await page.getByTestId('crumb-memories').click();
  await expect(page).toHaveURL(new RegExp(`/agents/${seed.agentId}\\?tab=memories$`));
  await expect(agent.records.getByText(FACTS.lineageHeading, { exact: true })).toBeVisible();

  const unknown = '00000000-0000-4000-8000-000000000000';
  const response = await page.goto(`/agents/${seed.agentId}/memories/${unknown}`);
  expect(response?.status()).toBe(404);
  await expect(page.getByTestId('not-found-title')).toHaveText('No memory with this id');
  await expect(page.getByTestId('not-found')).toContainText(unknown);
  await expect(page.getByTestId('lineage-page')).toHaveCount(0);
  await expect(page.getByTestId('crumb-page')).toHaveText('Memory 00000000');
  await page.getByTestId('not-found-memories').click();
  await expect(page).toHaveURL(/\?tab=memories$/);
  await expect(agent.records.first()).toBeVisible();
});
