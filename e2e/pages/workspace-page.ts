import type { Download, Locator, Page } from '@playwright/test';
import { AppShell } from './app-shell';

export class WorkspacePage extends AppShell {
  readonly treeFiles: Locator;
  readonly content: Locator;
  readonly sections: Locator;

  constructor(page: Page) {
    super(page);
    this.treeFiles = page.getByTestId('tree-file');
    this.content = page.getByTestId('file-content');
    this.sections = page.getByTestId('record-section');
  }

  async goto(agentId: string, query = ''): Promise<void> {
    await this.page.goto(`/agents/${agentId}/workspace${query}`);
    await this.page.getByTestId('workspace-page').waitFor();
  }

  async chooseSequence(seq: number): Promise<void> {
    const input = this.page.getByTestId('workspace-seq');
    await input.fill(String(seq));
    await input.press('Enter');
    await this.page.locator(`[data-testid="workspace-page"][data-seq="${seq}"]`).waitFor();
  }

  async openFile(path: string): Promise<void> {
    await this.page.locator(`[data-testid="tree-file"][data-path="${path}"]`).click();
    await this.page.locator(`[data-testid="file-viewer"][data-path="${path}"]`).waitFor();
  }

  async treePaths(): Promise<string[]> {
    return this.treeFiles.evaluateAll((els) => els.map((e) => e.getAttribute('data-path') ?? ''));
  }

  async compareWith(seq: number): Promise<void> {
    await this.page.getByTestId('compare-seq').fill(String(seq));
    await this.page.getByTestId('compare-seq').press('Enter');
    await this.page.getByTestId('file-compare').waitFor();
  }

  async download(format: 'tar.gz' | 'zip' | 'alf'): Promise<Download> {
    const [download] = await Promise.all([this.page.waitForEvent('download'), this.page.getByTestId(`download-${format}`).click()]);
    return download;
  }
}
