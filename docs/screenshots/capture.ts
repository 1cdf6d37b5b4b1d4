/**
 * Captures the README's screenshots from the demo fleet a new user sees after `npm start`:
 * seeds `lineage demo` into a temporary data directory (its last day fixed, so the pictures
 * do not depend on the date), serves it with `lineage serve` on a free port, and saves
 * fleet.png, lineage.png (atlas's gateway memory) and workspace.png (atlas's workspace with its
 * infrastructure file open) beside this script.
 *
 *   npx tsx docs/screenshots/capture.ts
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from '@playwright/test';
import { freePort } from '../../e2e/free-port';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, '../..');
const BIN = path.join(ROOT, 'bin', 'lineage.mjs');
const TODAY = '2026-11-30';
const GATEWAY_FACT = '10.20.0.9';
const WORKSPACE_FILE = 'memory/semantic/infrastructure.md';

async function getJson<T>(url: string): Promise<T> {
  const res = await fetch(url);
  if (!res.ok) throw new Error(`${url}: HTTP ${res.status}`);
  return (await res.json()) as T;
}

async function main(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lineage-screenshots-'));
  const demo = spawnSync(process.execPath, [BIN, 'demo', '--data', dataDir, '--today', TODAY], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  if (demo.status !== 0) throw new Error('lineage demo failed');
  const port = await freePort();
  const server = spawn(process.execPath, [BIN, 'serve', '--port', String(port), '--data', dataDir], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  const browser = await chromium.launch({
    executablePath: fs.existsSync('/usr/bin/chromium') ? '/usr/bin/chromium' : undefined,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let out = '';
      server.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        const line = out.split('\n').find((l) => l.startsWith('{'));
        if (line) resolve((JSON.parse(line) as { url: string }).url);
      });
      server.once('exit', (code) => reject(new Error(`lineage serve exited with ${code}`)));
    });
    const found = await getJson<{ first: { agent_id: string; record_id: string; sequence: number } | null }>(
      `${url}/api/search?q=${encodeURIComponent(GATEWAY_FACT)}`);
    if (!found.first) throw new Error(`the demo has no ${GATEWAY_FACT}`);
    const { agent_id: agent, record_id: record, sequence } = found.first;

    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const shoot = async (route: string, ready: string, file: string, fullPage = false) => {
      await page.goto(`${url}${route}`);
      await page.getByTestId(ready).first().waitFor();
      await page.waitForLoadState('networkidle');
      await page.screenshot({ path: path.join(HERE, file), fullPage });
      process.stderr.write(`saved docs/screenshots/${file} (${route})\n`);
    };
    await shoot('/', 'fleet-table', 'fleet.png', true);
    await shoot(`/agents/${agent}/memories/${record}`, 'version', 'lineage.png');
    await shoot(`/agents/${agent}/workspace?seq=${sequence}&file=${encodeURIComponent(WORKSPACE_FILE)}`, 'record-section', 'workspace.png');
  } finally {
    await browser.close();
    server.kill('SIGTERM');
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
