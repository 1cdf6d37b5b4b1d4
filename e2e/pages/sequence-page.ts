import type { Locator, Page } from '@playwright/test';
import { AppShell } from './app-shell';

export class SequencePage extends AppShell {
  readonly opCards: Locator;
  readonly rawFiles: Locator;

  constructor(page: Page) {
    super(page);
    this.opCards = page.getByTestId('op-card');
    this.rawFiles = page.getByTestId('raw-file');
  }

  async goto(agentId: string, seq: number): Promise<void> {
    await this.page.goto(`/agents/${agentId}/sequences/${seq}`);
    await this.page.getByTestId('sequence-page').waitFor();
  }

  opCard(op: 'create' | 'update' | 'delete' | 'move', title: string): Locator {
    return this.page.locator(`[data-testid="op-card"][data-op="${op}"]`).filter({ has: this.page.getByTestId('op-record-link').getByText(title, { exact: true }) });
  }

  rawFile(path: string): Locator {
    return this.page.locator(`[data-testid="raw-file"][data-path="${path}"]`);
  }

  async rawPaths(): Promise<string[]> {
    await this.rawFiles.first().waitFor();
    return (await this.rawFiles.evaluateAll((els) => els.map((e) => e.getAttribute('data-path') ?? ''))).sort();
  }
}
