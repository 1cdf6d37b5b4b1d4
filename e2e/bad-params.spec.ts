import { expect, test } from './fixtures';

/**
 * A malformed number in a page's address (`?seq=1.5`, `?at=-1`, `?offset=1e309`) is said in words;
 * the page does not quietly show its default — the latest workspace, the latest memories, the first
 * page of appearances — as if it had been asked for.
 */
const CASES = [
  { path: (id: string) => `/agents/${id}/workspace?seq=1.5`, said: 'seq=“1.5”', absent: 'workspace-current-seq' },
  { path: (id: string) => `/agents/${id}/workspace?seq=0x10`, said: 'seq=“0x10”', absent: 'workspace-current-seq' },
  { path: (id: string) => `/agents/${id}/workspace?compare=-1`, said: 'compare=“-1”', absent: 'workspace-current-seq' },
  { path: (id: string) => `/agents/${id}?tab=memories&at=-1`, said: 'at=“-1”', absent: 'records-total' },
  { path: (id: string) => `/agents/${id}?tab=memories&at=9007199254740993`, said: 'at=“9007199254740993”', absent: 'records-total' },
  { path: () => '/search?q=gateway&offset=1e309', said: 'offset=“1e309”', absent: 'first-snippet' },
] as const;

for (const c of CASES) {
  test(`a malformed number in the address is said, not replaced by the default: ${c.said}`, async ({ page, seed }) => {
    await page.goto(c.path(seed.agentId));
    const error = page.getByTestId('error-state');
    await expect(error).toContainText(c.said);
    await expect(error).toContainText('not a whole number');
    await expect(page.getByTestId(c.absent)).toHaveCount(0);
  });
}
