import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from './free-port';
import { expect, test, type Page } from '@playwright/test';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

interface Started {
  url: string;
  stdout: () => string;
  stderr: () => string;
  stop: () => Promise<void>;
}

/** Exactly the README's quick start: `npm start` (the bin, running the CLI from its bundle). */
async function npmStart(port: number, dataDir: string): Promise<Started> {
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
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null && child.pid) process.kill(-child.pid, 'SIGTERM');
    await exited;
  };
  try {
    await expect.poll(() => stdout, { timeout: 240_000, message: `lineage start never printed its URL:\n${stderr}` }).toContain('"url"');
  } catch (error) {
    await stop();
    throw error;
  }
  // npm prints its own header on stdout ("> alf-lineage@… start", "> node bin/lineage.mjs start");
  // lineage prints one JSON object and nothing else (Next.js's console output goes to stderr).
  const ours = stdout.split('\n').filter((line) => line !== '' && !line.startsWith('> '));
  expect(ours).toHaveLength(1);
  const { url } = JSON.parse(ours[0]!) as { url: string };
  return { url, stdout: () => stdout, stderr: () => stderr, stop };
}

async function expectDemoFleet(page: Page, url: string): Promise<void> {
  await page.goto(url);
  const fleet = page.getByTestId('fleet-table');
  for (const runtime of ['OpenClaw', 'ZeroClaw', 'Hermes']) await expect(fleet.getByText(runtime, { exact: true }).first()).toBeVisible();
  for (const name of ['atlas', 'scout', 'ledger-bot', 'hermes-desk']) await expect(fleet.getByText(name, { exact: true })).toBeVisible();
}

/**
 * `npm start` on an empty data directory: migrate, seed the demo, serve; the fleet shows three
 * runtimes. A second `npm start` on the same directory reuses it all: no seeding, no build.
 */
test('npm start seeds an empty data directory and serves a fleet of three runtimes; a second start reuses it', async ({ page }) => {
  test.setTimeout(360_000);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lineage-start-'));
  const port = await freePort();
  try {
    const first = await npmStart(port, dataDir);
    try {
      expect(first.url).toBe(`http://127.0.0.1:${port}`);
      expect(first.stderr()).toContain(`ALF Lineage is running at ${first.url}`);
      expect(first.stderr()).toContain('seeding the demo fleet');
      await expectDemoFleet(page, first.url);
      expect(fs.existsSync(path.join(dataDir, 'lineage.db'))).toBe(true);
    } finally {
      await first.stop();
    }
    const entries = fs.readdirSync(path.join(dataDir, 'blobs'), { recursive: true }).length;

    const second = await npmStart(port, dataDir);
    try {
      expect(second.url).toBe(first.url);
      expect(second.stderr()).not.toContain('seeding');
      expect(second.stderr()).not.toContain('next build');
      await expectDemoFleet(page, second.url);
      expect(fs.readdirSync(path.join(dataDir, 'blobs'), { recursive: true }).length).toBe(entries);
    } finally {
      await second.stop();
    }
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});
