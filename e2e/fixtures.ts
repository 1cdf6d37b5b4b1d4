/** Shared test fixtures: the seed manifest, base URL and a full-page screenshot helper. */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { test as base, expect, type Page, type TestInfo } from '@playwright/test';
import type { SeedManifest } from './seed/seed';

export { FACTS } from './seed/openclaw-life';

export function manifest(): SeedManifest {
  const file = process.env.E2E_MANIFEST;
  if (!file) throw new Error('E2E_MANIFEST is not set: run the specs through playwright.config.ts');
  return JSON.parse(fs.readFileSync(file, 'utf8')) as SeedManifest;
}

export const test = base.extend<{ seed: SeedManifest; noPageErrors: void }>({
  baseURL: async ({}, use) => use(process.env.E2E_BASE_URL),
  seed: async ({}, use) => use(manifest()),
  /** Every test fails on an uncaught page error (a crash, a hydration mismatch). */
  noPageErrors: [
    async ({ page }, use) => {
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(error.message));
      await use();
      expect(errors, 'uncaught errors in the page').toEqual([]);
    },
    { auto: true },
  ],
});

export { expect };

// Under test-results/ (git-ignored) so a test run never dirties the tree; docs/screenshots holds the README's copies.
const SHOTS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'test-results', 'screenshots');

/** Full-page screenshot, attached to the report and written to test-results/screenshots/<name>.png. */
export async function screenshot(page: Page, testInfo: TestInfo, name: string): Promise<void> {
  await page.waitForFunction(() => document.querySelectorAll('[data-testid=loading]').length === 0);
  fs.mkdirSync(SHOTS, { recursive: true });
  const body = await page.screenshot({ fullPage: true, animations: 'disabled' });
  fs.writeFileSync(path.join(SHOTS, `${name}.png`), body);
  await testInfo.attach(name, { body, contentType: 'image/png' });
}
