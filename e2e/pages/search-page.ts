import type { Locator, Page } from '@playwright/test';
import { AppShell } from './app-shell';

export class SearchPage extends AppShell {
  readonly first: Locator;
  readonly appearances: Locator;

  constructor(page: Page) {
    super(page);
    this.first = page.getByTestId('first-appearance');
    this.appearances = page.getByTestId('appearance');
  }

  async goto(q: string): Promise<void> {
    await this.page.goto(`/search?q=${encodeURIComponent(q)}`);
    await this.page.getByTestId('search-page').waitFor();
  }

  async openFirstVersion(): Promise<void> {
    await this.page.getByTestId('open-first-version').click();
    await this.page.getByTestId('lineage-page').waitFor();
  }
}
