/**
 * An agent's name is its workspace's (OpenClaw's `IDENTITY.md` `Name:`): untrusted text. The agent
 * page's heading once printed it raw — a right-to-left override acted on the page — and a long name
 * without spaces made the fleet and every agent page scroll sideways on a phone. It is shown as
 * every other name is (SafeName): overrides as `U+XXXX` badges, a long name cut with the full one
 * in a tooltip, and on a 360 px window nothing wider than the window. So do the pages that say the
 * agent's sequence, workspace or memory does not exist.
 *
 * Its own `lineage serve` on its own data directory (e2e/own-server.ts): such an agent in the shared
 * one would be in every other spec's fleet.
 */
import { expect, test as base } from './fixtures';
import { namedWorkspace, withOwnServer } from './own-server';

const NAME = `invoice\u202Egpj.exe${'L'.repeat(300)}`;

const test = base.extend<{ hostile: { url: string; agentId: string } }>({
  hostile: async ({}, use) => {
    await withOwnServer('name', [namedWorkspace(NAME, '## Owner\nDana owns billing.\n')], ({ url, agentIds }) => use({ url, agentId: agentIds[0]! }));
  },
});

test('an agent name with an override and no spaces: badged, cut, and no wider than a phone', async ({ page, hostile }) => {
  test.setTimeout(180_000);
  const { url, agentId } = hostile;
  await page.setViewportSize({ width: 360, height: 800 });
  await page.goto(`${url}/agents/${agentId}`);
  const heading = page.getByTestId('agent-name');
  await expect(heading.getByTestId('hidden-char')).toHaveText('U+202E');
  expect(await heading.textContent()).not.toContain('\u202E');
  expect((await heading.textContent())!.length).toBeLessThan(100);
  // The full name (as far as the ledger keeps a name) in the tooltip, the override written out.
  await expect(heading.locator('[data-safe-name]')).toHaveAttribute('title', /^invoice\[U\+202E\]gpj\.exeL{100,}$/);

  for (const target of ['/', `/agents/${agentId}`, `/agents/${agentId}?tab=memories`, `/agents/${agentId}?tab=changes`, `/agents/${agentId}/workspace`]) {
    await page.goto(`${url}${target}`);
    await page.waitForLoadState('networkidle');
    expect(await page.evaluate(() => document.documentElement.scrollWidth), target).toBeLessThanOrEqual(360);
  }

  for (const target of [`/agents/${agentId}/sequences/99`, `/agents/${agentId}/workspace?seq=99`, `/agents/${agentId}/memories/00000000-0000-4000-8000-000000000000`]) {
    await page.goto(`${url}${target}`);
    const main = page.locator('main');
    await expect(main.getByTestId('hidden-char').last()).toHaveText('U+202E');
    expect(await main.textContent(), target).not.toContain('\u202E');
  }
});
