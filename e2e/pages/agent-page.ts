import type { Locator, Page } from '@playwright/test';
import { AppShell } from './app-shell';

export class AgentPage extends AppShell {
  readonly records: Locator;
  readonly sequences: Locator;

  constructor(page: Page) {
    super(page);
    this.records = page.getByTestId('record-row');
    this.sequences = page.getByTestId('sequence-row');
  }

  /**
   * Opens the page and waits until it has hydrated: the open tab's list is in the document already,
   * so its rows being drawn no longer means the filters, tabs and buttons act.
   */
  async goto(agentId: string, tab?: 'memories' | 'changes'): Promise<void> {
    await this.page.goto(`/agents/${agentId}${tab ? `?tab=${tab}` : ''}`);
    await this.page.locator('[data-testid="agent-page"][data-hydrated]').waitFor();
  }

  async openTab(tab: 'timeline' | 'memories' | 'changes'): Promise<void> {
    await this.page.getByTestId(`tab-${tab}`).click();
  }

  async openMemory(heading: string): Promise<void> {
    await this.records.getByTestId('record-link').getByText(heading, { exact: true }).click();
    await this.page.getByTestId('lineage-page').waitFor();
  }
}
