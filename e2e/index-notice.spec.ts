/**
 * An agent whose history index stops short of its ledger — a pending entry (a local sync's large
 * upload, its fold left to a catch-up) whose blob is damaged — says so on its pages: under the
 * header, the sequence the history shown stops at, the entry stored and not folded, why, and what the
 * operator runs (components/agent/IndexNoticeBanner.tsx). Before, the pages answered from the index
 * without a word. The agents overview flags its row ("history behind": GET /api/agents `index_behind`).
 * Its own `lineage serve` on its own data directory (e2e/seed/index-notice-seed.ts):
 * a damaged blob in the shared one would be in every other spec's way.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test } from './fixtures';
import { freePort } from './free-port';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

test('the notice sits under the agent\'s header on each of its pages, and not on a healthy agent\'s', async ({ page }) => {
  test.setTimeout(600_000);
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'lineage-e2e-notice-'));
  const dataDir = path.join(scratch, 'data');
  const seeded = spawnSync('npx', ['tsx', 'e2e/seed/index-notice-seed.ts', dataDir], { cwd: ROOT, encoding: 'utf8' });
  if (seeded.status !== 0) throw new Error(`seeding failed: ${seeded.stderr}`);
  const { broken, healthy, pendingFrom } = JSON.parse(seeded.stdout.trim()) as { broken: string; healthy: string; pendingFrom: number };
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const server = spawn('npx', ['tsx', 'lib/cli/main.ts', 'serve', '--port', String(port), '--data', dataDir], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'], detached: true });
  const exited = new Promise((r) => server.once('exit', r));
  try {
    await expect.poll(async () => (await fetch(`${url}/api/agents`).catch(() => null))?.status ?? 0, { timeout: 600_000 }).toBe(200);
    await page.goto(`${url}/agents/${broken}`);
    const notice = page.getByTestId('index-notice');
    await expect(notice).toContainText(`This agent's history stops at sequence ${pendingFrom - 1}`);
    await expect(notice).toContainText(`sequence ${pendingFrom}`);
    await expect(notice).toContainText('lineage doctor');
    await expect(notice).toHaveAttribute('data-pending-from', String(pendingFrom));
    // Under the header, above the view.
    const header = await page.getByTestId('agent-header').boundingBox();
    expect((await notice.boundingBox())!.y).toBeGreaterThan(header!.y);
    // Another page of the agent, reached in the page (the layout stays): still there.
    await page.getByTestId('open-workspace').click();
    await expect(page).toHaveURL(new RegExp(`/agents/${broken}/workspace`));
    await expect(page.getByTestId('index-notice')).toBeVisible();
    // A healthy agent's page: none.
    await page.goto(`${url}/agents/${healthy}`);
    await expect(page.getByTestId('agent-name')).toBeVisible();
    await expect(page.getByTestId('index-notice')).toHaveCount(0);
    // The agents overview flags the broken agent's row ("history behind", linked to its page), not the healthy one's.
    await page.goto(url);
    await expect(page.locator(`[data-testid="fleet-row"][data-agent-id="${healthy}"]`)).toBeVisible();
    await expect(page.locator(`[data-testid="fleet-row"][data-agent-id="${broken}"]`).getByTestId('fleet-index-behind')).toHaveText('history behind');
    await expect(page.locator(`[data-testid="fleet-row"][data-agent-id="${healthy}"]`).getByTestId('fleet-index-behind')).toHaveCount(0);
    await page.locator(`[data-testid="fleet-row"][data-agent-id="${broken}"]`).getByTestId('fleet-index-behind').click();
    await expect(page).toHaveURL(new RegExp(`/agents/${broken}$`));
    await expect(page.getByTestId('index-notice')).toBeVisible();
  } finally {
    if (server.exitCode === null && server.pid) process.kill(-server.pid, 'SIGTERM');
    await exited;
    fs.rmSync(scratch, { recursive: true, force: true });
  }
});
