import { expect, test } from './fixtures';
import { AgentPage } from './pages/agent-page';
import { FleetPage } from './pages/fleet-page';

test("this week's changes appear on the fleet page and the op filter narrows them", async ({ page }) => {
  const fleet = new FleetPage(page);
  await fleet.goto();
  await expect(fleet.changes.first()).toBeVisible();
  const all = await fleet.changes.count();
  const ops = async () => new Set(await fleet.changes.evaluateAll((els) => els.map((e) => e.getAttribute('data-op'))));
  expect(await ops()).toEqual(new Set(['create', 'update', 'delete', 'move']));

  await fleet.filterOp('delete');
  await expect(page).toHaveURL(/op=delete/);
  await expect.poll(ops).toEqual(new Set(['delete']));
  const deletes = await fleet.changes.count();
  expect(deletes).toBeGreaterThan(0);
  expect(deletes).toBeLessThan(all);
  await expect(page.getByTestId('tombstone-time').first()).toContainText('deleted');

  await page.goBack();
  await expect(fleet.changes).toHaveCount(all);
});

test('a move is one change, filtered by Moved, naming both files; Deleted no longer lists its delete half', async ({ page, request, seed }) => {
  type Change = { seq: number; op: string; record_id: string; origin_file: string | null; from_file: string | null };
  const feed = async (op: string) => ((await (await request.get(`/api/changes?since=this-week&op=${op}`)).json()) as { groups: { changes: Change[] }[] })
    .groups.flatMap((g) => g.changes);
  const moves = await feed('move');
  expect(moves.length).toBeGreaterThan(0);
  expect(moves.every((m) => m.op === 'move' && m.from_file !== null && m.from_file !== m.origin_file)).toBe(true);
  const movedIds = new Set(moves.map((m) => m.record_id));
  expect((await feed('create')).filter((c) => movedIds.has(c.record_id))).toEqual([]);

  const agent = new AgentPage(page);
  await agent.goto(seed.agentId, 'changes');
  const rows = page.getByTestId('change-row');
  await page.getByTestId('op-filter').locator('[data-value="move"]').click();
  await expect(page).toHaveURL(/op=move/);
  await expect.poll(async () => new Set(await rows.evaluateAll((els) => els.map((e) => e.getAttribute('data-op'))))).toEqual(new Set(['move']));
  const from = Object.keys(seed.steps[3]!).find((p) => p.startsWith('memory/episodic/'))!;
  const to = Object.keys(seed.steps[4]!).find((p) => p.startsWith('memory/archive/'))!;
  await expect(rows).toHaveCount(2);
  await expect(rows.first().getByTestId('change-move')).toHaveText(`moved ${from} → ${to}`);
  await expect(rows.first().getByTestId('op-badge')).toHaveText('moved');
  await page.getByTestId('op-filter').locator('[data-value="delete"]').click();
  await expect.poll(async () => (await rows.evaluateAll((els) => els.map((e) => e.getAttribute('data-seq')))).includes('4')).toBe(false);
});

test("an agent's Changes tab groups by day and filters by op", async ({ page, seed }) => {
  const agent = new AgentPage(page);
  await agent.goto(seed.agentId, 'changes');
  const rows = page.getByTestId('change-row');
  await expect(rows.first()).toBeVisible();
  await expect(page.getByTestId('changes-day').first()).toBeVisible();
  await page.getByTestId('op-filter').locator('[data-value="update"]').click();
  await expect(page).toHaveURL(/tab=changes.*op=update|op=update.*tab=changes/);
  await expect.poll(async () => new Set(await rows.evaluateAll((els) => els.map((e) => e.getAttribute('data-op'))))).toEqual(new Set(['update']));
});

type ChangesJson = { groups: { changes: { seq: number; op: string; record_id: string }[] }[] };
const keysOf = (json: ChangesJson) => json.groups.flatMap((g) => g.changes.map((c) => `${c.seq}:${c.op}:${c.record_id}`)).sort();

test("an agent's Changes tab over the last 7 days and since a chosen date", async ({ page, request, seed }) => {
  const agent = new AgentPage(page);
  await agent.goto(seed.agentId, 'changes');
  const rows = page.getByTestId('change-row');
  const rowKeys = async () =>
    (await rows.evaluateAll((els) => els.map((e) => `${e.getAttribute('data-seq')}:${e.getAttribute('data-op')}:${e.getAttribute('data-record-id')}`))).sort();
  const rowSeqs = async () => new Set((await rows.evaluateAll((els) => els.map((e) => Number(e.getAttribute('data-seq'))))));
  // The seed's first three syncs fall before this week's Monday: "this week" has none of them.
  await expect(rows.first()).toBeVisible();
  expect([...(await rowSeqs())].every((seq) => seq >= 3)).toBe(true);

  await page.getByTestId('since-filter').locator('[data-value="7d"]').click();
  await expect(page).toHaveURL(/since=7d/);
  const api7d = keysOf(await (await request.get(`/api/changes?since=7d&agent=${seed.agentId}`)).json());
  await expect.poll(rowKeys).toEqual(api7d);

  // Since the day of the first sync: every change of the agent's life, its first creates included.
  const first = (await (await request.get(`/api/agents/${seed.agentId}/sequences/0`)).json()) as { synced_at: string; ops: unknown[] };
  const day = first.synced_at.slice(0, 10);
  await page.getByTestId('since-filter').locator('[data-value="date"]').click();
  await page.getByTestId('since-date').fill(day);
  await expect(page).toHaveURL(new RegExp(`since=${day}`));
  await expect(page.getByTestId('changes-count')).toContainText(', 00:00 UTC');
  await expect.poll(async () => (await rowKeys()).filter((k) => k.startsWith('0:')).length).toBe(first.ops.length);
  const apiDate = keysOf(await (await request.get(`/api/changes?since=${day}&agent=${seed.agentId}`)).json());
  expect(await rowKeys()).toEqual(apiDate);
  expect(await rowSeqs()).toEqual(new Set(seed.steps.map((_, i) => i)));
});
