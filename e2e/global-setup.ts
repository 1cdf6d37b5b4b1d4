/**
 * Seeds a temporary data directory through the real sync pipeline (the demo fleet via
 * `lineage demo`, then the scripted test agent via e2e/seed/seed.ts) and starts `lineage serve` on a
 * free port. The base URL, data dir and manifest path reach the specs through the environment.
 * The dashboard is built the way `npm start` builds it: by the server itself, when there is no
 * production build or its sources changed since (so a fresh clone's test run goes through that path).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from './free-port';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

function run(cmd: string, args: string[], env: Record<string, string> = {}): void {
  const result = spawnSync(cmd, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed with exit code ${result.status}`);
}


async function waitForServer(url: string, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + 600_000; // a first run builds the dashboard
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`lineage serve exited with code ${child.exitCode}`);
    try {
      const res = await fetch(`${url}/api/agents`);
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`lineage serve did not answer at ${url}`);
}

export default async function globalSetup(): Promise<void> {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'lineage-e2e-'));
  const dataDir = path.join(base, 'data');
  const scratch = path.join(base, 'scratch');
  const env = { ALF_HOME: path.join(scratch, 'alf-home'), LINEAGE_DATA: dataDir };
  run('npx', ['tsx', 'lib/cli/main.ts', 'demo', '--data', dataDir], env);
  run('npx', ['tsx', 'e2e/seed/seed.ts', dataDir, scratch], env);

  const port = await freePort();
  // Only --data names the data directory (no LINEAGE_DATA): the dashboard must follow the flag.
  const { LINEAGE_DATA: _unused, ...serverEnv } = { ...process.env, ...env };
  const server = spawn('npx', ['tsx', 'lib/cli/main.ts', 'serve', '--port', String(port), '--data', dataDir], {
    cwd: ROOT,
    env: serverEnv,
    stdio: ['ignore', 'ignore', 'inherit'],
    detached: true,
  });
  const url = `http://127.0.0.1:${port}`;
  await waitForServer(url, server);
  fs.writeFileSync(path.join(base, 'server.pid'), String(server.pid));
  process.env.E2E_BASE_URL = url;
  process.env.E2E_DIR = base;
  process.env.E2E_MANIFEST = path.join(scratch, 'manifest.json');
}
