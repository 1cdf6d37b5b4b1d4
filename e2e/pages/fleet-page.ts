import type { Locator, Page } from '@playwright/test';
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

  async filterOp(op: 'all' | 'create' | 'update' | 'delete'): Promise<void> {
    await this.page.getByTestId('op-filter').locator(`[data-value="${op}"]`).click();
  }
}
