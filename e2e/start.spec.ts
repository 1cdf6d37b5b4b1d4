import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from './free-port';
import { expect, test } from '@playwright/test';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');


/** `npm start` on an empty data directory: migrate, seed the demo, serve; the fleet shows three runtimes. */
test('npm start seeds an empty data directory and serves a fleet of three runtimes', async ({ page }) => {
  test.setTimeout(300_000);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lineage-start-'));
  const port = await freePort();
  // Exactly the README's quick start: npm start (the bin, running the CLI from its bundle).
  const child = spawn('npm', ['start'], {
    cwd: ROOT,
    env: { ...process.env, PORT: String(port), LINEAGE_DATA: dataDir },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  try {
    await expect.poll(() => stdout, { timeout: 240_000, message: `lineage start never printed its URL:\n${stderr}` }).toContain('"url"');
    const { url } = JSON.parse(stdout.trim().split('\n').pop()!) as { url: string };
    expect(url).toBe(`http://127.0.0.1:${port}`);
    expect(stderr).toContain(`ALF Lineage is running at ${url}`);
    await page.goto(url);
    const fleet = page.getByTestId('fleet-table');
    for (const runtime of ['OpenClaw', 'ZeroClaw', 'Hermes']) await expect(fleet.getByText(runtime, { exact: true }).first()).toBeVisible();
    for (const name of ['atlas', 'scout', 'ledger-bot', 'hermes-desk']) await expect(fleet.getByText(name, { exact: true })).toBeVisible();
    expect(fs.existsSync(path.join(dataDir, 'lineage.db'))).toBe(true);
  } finally {
    if (child.pid) process.kill(-child.pid, 'SIGTERM');
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});
