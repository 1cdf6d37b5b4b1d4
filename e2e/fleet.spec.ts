import { expect, test } from './fixtures';
import { AgentPage } from './pages/agent-page';
import { FleetPage } from './pages/fleet-page';

type AgentStats = { id: string; name: string; changed_records_7d: number; syncs_7d: number };

test("each fleet row's change count is the API's rolling 7-day count, and says so", async ({ page, request, seed }) => {
  const agents = (await (await request.get('/api/agents')).json()) as AgentStats[];
  expect(agents.length).toBeGreaterThan(1);
  const fleet = new FleetPage(page);
  await fleet.goto();
  await expect(page.getByTestId('changed-7d-header')).toHaveText('Changed (7 days)');
  for (const agent of agents) {
    await expect(fleet.row(agent.name).getByTestId('changed-7d-count'), agent.name).toHaveText(String(agent.changed_records_7d));
  }
  const vega = agents.find((a) => a.id === seed.agentId)!;
  expect(vega.changed_records_7d).toBeGreaterThan(0);

  await new AgentPage(page).goto(seed.agentId);
  const header = page.getByTestId('agent-changed-7d');
  await expect(header).toContainText('Last 7 days');
  await expect(header).toContainText(`${vega.changed_records_7d} changed in ${vega.syncs_7d} ${vega.syncs_7d === 1 ? 'sync' : 'syncs'}`);
});

test("the fleet's change count takes a moved memory once, and its sparkline draws moves in their own colour", async ({ page, request, seed }) => {
  type Change = { op: string; record_id: string; from_record_id: string | null };
  const agents = (await (await request.get('/api/agents')).json()) as (AgentStats & { activity: { moves: number }[] })[];
  const vega = agents.find((a) => a.id === seed.agentId)!;
  const changes = ((await (await request.get(`/api/changes?agent=${seed.agentId}&since=7d`)).json()) as { groups: { changes: Change[] }[] })
    .groups.flatMap((g) => g.changes);
  const ids = new Set(changes.map((c) => c.record_id));
  const pairs = changes.filter((c) => c.op === 'move' && c.from_record_id !== null && ids.has(c.from_record_id)).length;
  // (The daily log's first version may fall outside the window: then the move is its only change there.)
  expect(vega.changed_records_7d).toBe(ids.size - pairs);
  expect(vega.activity.reduce((n, d) => n + d.moves, 0)).toBeGreaterThan(0);

  const fleet = new FleetPage(page);
  await fleet.goto();
  await expect(fleet.row(vega.name).getByTestId('changed-7d-count')).toHaveText(String(ids.size - pairs));
  await expect(fleet.row(vega.name).getByTestId('activity-sparkline').locator('path[fill="#7c3aed"]').first()).toBeAttached();
  // One path per op, not an element per bar: the fleet table draws one sparkline per agent (101 at fleet scale).
  const sparkline = fleet.row(vega.name).getByTestId('activity-sparkline');
  expect(await sparkline.locator('*').count()).toBeLessThanOrEqual(6);
  await sparkline.hover({ position: { x: 138, y: 14 } });
  await expect(sparkline).toContainText(/\+\d+ ~\d+ −\d+ →\d+/);
});
