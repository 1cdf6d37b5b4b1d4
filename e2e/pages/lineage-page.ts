import type { Locator, Page } from '@playwright/test';
import { AppShell } from './app-shell';

export class LineagePage extends AppShell {
  readonly versions: Locator;
  readonly title: Locator;

  constructor(page: Page) {
    super(page);
    this.versions = page.getByTestId('version');
    this.title = page.getByTestId('lineage-title');
  }

  async goto(agentId: string, recordId: string, query = ''): Promise<void> {
    await this.page.goto(`/agents/${agentId}/memories/${recordId}${query}`);
    await this.page.getByTestId('lineage-page').waitFor();
  }

  version(seq: number): Locator {
    return this.page.locator(`[data-testid="version"][data-seq="${seq}"]`);
  }

  async versionSeqs(): Promise<number[]> {
    return (await this.versions.evaluateAll((els) => els.map((e) => Number(e.getAttribute('data-seq')))));
  }

  async show(mode: 'diff' | 'full'): Promise<void> {
    await this.page.getByTestId('view-toggle').locator(`[data-value="${mode}"]`).click();
  }
}
