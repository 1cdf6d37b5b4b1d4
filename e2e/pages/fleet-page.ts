import type { Locator, Page } from '@playwright/test';
import { AgentPage } from './agent-page';
import { AppShell } from './app-shell';

export class FleetPage extends AppShell {
  readonly rows: Locator;
  readonly changes: Locator;

  constructor(page: Page) {
    super(page);
    this.rows = page.getByTestId('fleet-row');
    this.changes = page.getByTestId('changes-panel').getByTestId('change-row');
  }

  async goto(): Promise<void> {
    await this.page.goto('/');
    await this.page.getByTestId('fleet-table').waitFor();
  }

  row(agentName: string): Locator {
    return this.rows.filter({ has: this.page.getByTestId('agent-link').getByText(agentName, { exact: true }) });
  }

  /** Follows an agent's link from the fleet table to its page. */
  async openAgent(agentName: string): Promise<AgentPage> {
    await this.row(agentName).getByTestId('agent-link').click();
    await this.page.getByTestId('agent-page').waitFor();
    return new AgentPage(this.page);
  }

  async filterOp(op: 'all' | 'create' | 'update' | 'delete' | 'move'): Promise<void> {
    await this.page.getByTestId('op-filter').locator(`[data-value="${op}"]`).click();
  }
}
