import type { Page } from '@playwright/test';

/** The header every page shares: the global fact search. */
export class AppShell {
  constructor(readonly page: Page) {}

  async search(text: string): Promise<void> {
    const box = this.page.getByTestId('global-search');
    await box.fill(text);
    await box.press('Enter');
    await this.page.waitForURL(/\/search\?/);
  }
}
