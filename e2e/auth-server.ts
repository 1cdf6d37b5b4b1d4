/**
 * A second `lineage serve`, with `--auth required`, on its own fresh data directory: keys made with
 * the real `lineage keys create`, an agent synced with the real `lineage sync --server` from a
 * workspace whose memory holds a remote image and whose file names hold a right-to-left override.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { test as base } from '@playwright/test';
import { freePort } from './free-port';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export const TRACKER = 'http://tracker.invalid/pixel.gif';
export const RLO_FILE = 'invoice\u202Egpj.md';
export const REMOTE_HEADING = 'Remote picture';

export interface AuthServer {
  url: string;
  ownerKey: string;
  otherKey: string;
  adminKey: string;
  agentId: string;
  stop(): Promise<void>;
}

function cli(args: string[], env: Record<string, string>): Record<string, unknown> {
  const run = spawnSync('npx', ['tsx', 'lib/cli/main.ts', ...args], { cwd: ROOT, env: { ...process.env, ...env }, encoding: 'utf8' });
  const last = run.stdout.trim().split('\n').pop() ?? '';
  if (run.status !== 0) throw new Error(`lineage ${args.join(' ')} failed: ${run.stderr}\n${run.stdout}`);
  return JSON.parse(last) as Record<string, unknown>;
}

async function waitFor(url: string, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + 600_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`lineage serve exited with code ${child.exitCode}`);
    try {
      if ((await fetch(`${url}/login`)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 300));
  }
  throw new Error(`lineage serve did not answer at ${url}`);
}

export async function startAuthServer(): Promise<AuthServer> {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'lineage-e2e-auth-'));
  const dataDir = path.join(base, 'data');
  const env = { ALF_HOME: path.join(base, 'alf-home') };
  const key = (name: string, admin = false) => String(cli(['keys', 'create', '--name', name, '--data', dataDir, ...(admin ? ['--admin'] : [])], env).key);
  const ownerKey = key('owner');
  const otherKey = key('other');
  const adminKey = key('admin', true);
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawn('npx', ['tsx', 'lib/cli/main.ts', 'serve', '--auth', 'required', '--port', String(port), '--data', dataDir], {
    cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'inherit'], detached: true,
  });
  const exited = new Promise((r) => child.once('exit', r));
  await waitFor(url, child);
  const workspace = path.join(base, 'workspace');
  fs.mkdirSync(path.join(workspace, 'memory'), { recursive: true });
  fs.writeFileSync(path.join(workspace, 'MEMORY.md'), `# Memory\n\n## ${REMOTE_HEADING}\n\nThe office, as seen ![from the street](${TRACKER}) last week.\n`);
  fs.writeFileSync(path.join(workspace, 'memory', RLO_FILE), '## Invoice\n\nNot a picture.\n');
  const synced = cli(['sync', '-r', 'openclaw', '-w', workspace, '--server', url, '--key', ownerKey], env);
  const agentId = String(synced.agent_id ?? fs.readFileSync(path.join(workspace, '.alf-agent-id'), 'utf8').trim());
  return {
    url, ownerKey, otherKey, adminKey, agentId,
    stop: async () => {
      if (child.exitCode === null && child.pid) process.kill(-child.pid, 'SIGTERM');
      await exited;
      fs.rmSync(base, { recursive: true, force: true });
    },
  };
}

/** Specs that need the signed-in server: one per worker, shared by every spec that uses this test. */
export const authTest = base.extend<object, { auth: AuthServer }>({
  auth: [async ({}, use) => {
    const server = await startAuthServer();
    await use(server);
    await server.stop();
  }, { scope: 'worker', timeout: 600_000 }],
});
