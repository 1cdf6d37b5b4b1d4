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
