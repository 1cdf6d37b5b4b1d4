import type { Locator, Page } from '@playwright/test';
import { AppShell } from './app-shell';

export class SearchPage extends AppShell {
  readonly first: Locator;
  readonly appearances: Locator;
  /** "First appeared in Vega at #2 (…), in … — still present at #5". */
  readonly sentence: Locator;
  readonly status: Locator;
  readonly hits: Locator;
  readonly empty: Locator;
  readonly suggestions: Locator;

  constructor(page: Page) {
    super(page);
    this.first = page.getByTestId('first-appearance');
    this.appearances = page.getByTestId('appearance');
    this.sentence = page.getByTestId('first-sentence');
    this.status = page.getByTestId('fact-status');
    this.hits = page.getByTestId('first-snippet').getByTestId('search-hit');
    this.empty = page.getByTestId('search-empty');
    this.suggestions = page.getByTestId('suggestion');
  }

  async goto(q: string): Promise<void> {
    await this.page.goto(`/search?q=${encodeURIComponent(q)}`);
    await this.page.getByTestId('search-page').waitFor();
  }

  async openFirstVersion(): Promise<void> {
    await this.page.getByTestId('open-first-version').click();
    await this.page.getByTestId('lineage-page').waitFor();
  }

  async followSuggestion(query: string): Promise<void> {
    await this.suggestions.filter({ hasText: query }).click();
    await this.page.waitForURL((url) => url.searchParams.get('q') === query);
  }
}
