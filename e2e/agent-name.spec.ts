/**
 * An agent's name is its workspace's (OpenClaw's `IDENTITY.md` `Name:`): untrusted text. The agent
 * page's heading once printed it raw — a right-to-left override acted on the page — and a long name
 * without spaces made the fleet and every agent page scroll sideways on a phone. It is shown as
 * every other name is (SafeName): overrides as `U+XXXX` badges, a long name cut with the full one
 * in a tooltip, and on a 360 px window nothing wider than the window. So do the pages that say the
 * agent's sequence, workspace or memory does not exist.
 *
 * Its own `lineage serve` on its own data directory: such an agent in the shared one would be in
 * every other spec's fleet.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test as base } from './fixtures';
import { freePort } from './free-port';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const NAME = `invoice\u202Egpj.exe${'L'.repeat(300)}`;

const test = base.extend<{ hostile: { url: string; agentId: string } }>({
  hostile: async ({}, use) => {
    const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'lineage-e2e-name-'));
    const env = { ...process.env, ALF_HOME: path.join(scratch, 'alf-home') };
    const dataDir = path.join(scratch, 'data');
    const workspace = path.join(scratch, 'ws');
    fs.mkdirSync(workspace, { recursive: true });
    fs.writeFileSync(path.join(workspace, 'IDENTITY.md'), `# Identity\n\nName: ${NAME}\n`);
    fs.writeFileSync(path.join(workspace, 'MEMORY.md'), '# Memory\n\n## Owner\nDana owns billing.\n');
    const run = spawnSync('npx', ['tsx', 'lib/cli/main.ts', 'sync', '-r', 'openclaw', '-w', workspace, '--data', dataDir], { cwd: ROOT, env, encoding: 'utf8' });
    if (run.status !== 0) throw new Error(`lineage sync failed: ${run.stderr}\n${run.stdout}`);
    const agentId = (JSON.parse(run.stdout.trim().split('\n').pop()!) as { agent: { alf_agent_id: string } }).agent.alf_agent_id;
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const child: ChildProcess = spawn('npx', ['tsx', 'lib/cli/main.ts', 'serve', '--port', String(port), '--data', dataDir], {
      cwd: ROOT, env, stdio: ['ignore', 'ignore', 'inherit'], detached: true,
    });
    const exited = new Promise((r) => child.once('exit', r));
    try {
      await expect.poll(async () => (await fetch(`${url}/api/agents`).catch(() => null))?.status ?? 0, { timeout: 600_000 }).toBe(200);
      await use({ url, agentId });
    } finally {
      if (child.exitCode === null && child.pid) process.kill(-child.pid, 'SIGTERM');
      await exited;
      fs.rmSync(scratch, { recursive: true, force: true });
    }
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
