/**
 * A team lead reads the dashboard on a phone (360 × 740): memory text with a run of 600 characters and
 * no space, a heading 300 characters long, a URL of 300 characters, a wide markdown table and code
 * line, and a file 5 folders deep whose every name is long. No page of that agent scrolls sideways,
 * and no box of the page reaches past the window's right edge (a scroller of its own may hold wide
 * code or a table; the page never does).
 *
 * Its own `lineage serve` (e2e/own-server.ts): such an agent in the shared fleet would be in every
 * other spec's pages.
 */
import type { Page } from '@playwright/test';
import { expect, test as base } from './fixtures';
import { withOwnServer } from './own-server';

const RUN = 'Z'.repeat(600);
const HEADING = `Heading${'Withoutanyspace'.repeat(20)}`;
const URL_TEXT = `https://example.com/${'segment/'.repeat(40)}end`;
const TABLE = `| ${Array.from({ length: 12 }, (_, i) => `column number ${i}`).join(' | ')} |\n|${' --- |'.repeat(12)}\n| ${Array.from({ length: 12 }, (_, i) => `value ${i} ${RUN.slice(0, 40)}`).join(' | ')} |`;
const CODE = `\`\`\`\n${'const aVeryLongIdentifier = someFunction(argument);'.repeat(6)}\n\`\`\``;
const DEEP = `memory/${['a-folder-whose-name-goes-on-and-on', 'another-folder-with-a-long-name', 'yet-another-folder-name', 'the-fourth-folder-of-the-path', 'and-a-fifth-one'].join('/')}/${'a-file-named-at-length-'.repeat(4)}notes.md`;

const WORKSPACE = {
  'IDENTITY.md': '# Identity\n\nName: longtext\n',
  'MEMORY.md': `# Memory\n\n## ${HEADING}\n\n${RUN}\n\n## Links\n\nSee ${URL_TEXT} for the runbook.\n\n## Table\n\n${TABLE}\n\n## Code\n\n${CODE}\n`,
  [DEEP]: `## Deep note\n\nKept at the end of a long path: ${RUN.slice(0, 200)}\n`,
};

const test = base.extend<{ own: { url: string; agentId: string } }>({
  own: async ({}, use) => {
    await withOwnServer('long', [WORKSPACE], ({ url, agentIds }) => use({ url, agentId: agentIds[0]! }));
  },
});

/** Boxes (outside any element that scrolls or clips sideways) whose right edge is past the window. */
async function pastTheEdge(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const width = document.documentElement.clientWidth;
    const found: string[] = [];
    const clipped = (e: Element) => {
      for (let p = e.parentElement; p && p !== document.body; p = p.parentElement) {
        if (getComputedStyle(p).overflowX !== 'visible') return true;
      }
      return false;
    };
    if (document.documentElement.scrollWidth > width) found.push(`the page is ${document.documentElement.scrollWidth} px wide`);
    for (const e of Array.from(document.querySelectorAll('main *, header *'))) {
      const r = e.getBoundingClientRect();
      if (r.width === 0 || r.height === 0 || r.right <= width + 0.5) continue;
      if (clipped(e)) continue;
      found.push(`${e.tagName.toLowerCase()}${e.getAttribute('data-testid') ? `[${e.getAttribute('data-testid')}]` : ''} ends at ${Math.round(r.right)} px: “${(e.textContent ?? '').slice(0, 40)}”`);
      if (found.length > 8) break;
    }
    return found;
  });
}

test('long memory text, headings, URLs, tables, code and paths stay inside a phone window on every page', async ({ page, own }) => {
  test.setTimeout(300_000);
  const { url, agentId } = own;
  await page.setViewportSize({ width: 360, height: 740 });
  const records = (await (await page.request.get(`${url}/api/agents/${agentId}/records?limit=50`)).json()) as { items: { record_id: string }[] };
  expect(records.items.length).toBeGreaterThanOrEqual(4); // the four sections of MEMORY.md
  const targets = [
    '/',
    `/agents/${agentId}`,
    `/agents/${agentId}?tab=memories`,
    `/agents/${agentId}?tab=changes`,
    `/agents/${agentId}/sequences/0`,
    `/agents/${agentId}/workspace?file=MEMORY.md`,
    `/agents/${agentId}/workspace?file=MEMORY.md&view=blame`,
    `/agents/${agentId}/workspace?file=${encodeURIComponent(DEEP)}`,
    `/search?q=runbook`,
    ...records.items.map((r) => `/agents/${agentId}/memories/${r.record_id}`),
  ];
  const wide: string[] = [];
  for (const target of targets) {
    await page.goto(`${url}${target}`);
    await page.waitForLoadState('networkidle');
    await page.waitForFunction(() => document.querySelectorAll('[data-testid=loading]').length === 0);
    for (const line of await pastTheEdge(page)) wide.push(`${target}: ${line}`);
  }
  expect(wide, wide.join('\n')).toEqual([]);
});
