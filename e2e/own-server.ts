/**
 * A `lineage serve` of a spec's own, on a fresh data directory: for names a workspace chose (markup, overrides, a
 * name 300 characters long) that would sit in every other spec's fleet if they were in the shared one. Each workspace
 * is synced with the real `lineage sync -r openclaw` (its own ALF_HOME), then the server starts on a free port; when
 * `use` returns (or throws) the server is stopped and the directory removed.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from './fixtures';
import { freePort } from './free-port';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** A workspace's files, by path relative to it. */
export type WorkspaceFiles = Record<string, string>;

/** An OpenClaw workspace named `name` whose MEMORY.md holds one section. */
export const namedWorkspace = (name: string, memory: string): WorkspaceFiles => ({
  'IDENTITY.md': `# Identity\n\nName: ${name}\n`,
  'MEMORY.md': `# Memory\n\n${memory}`,
});

export interface OwnServer {
  url: string;
  /** The agent each workspace became, in the order given. */
  agentIds: string[];
}

export async function withOwnServer(prefix: string, workspaces: WorkspaceFiles[], use: (server: OwnServer) => Promise<void>): Promise<void> {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), `lineage-e2e-${prefix}-`));
  let child: ChildProcess | null = null;
  let exited: Promise<unknown> = Promise.resolve();
  try {
    const env = { ...process.env, ALF_HOME: path.join(scratch, 'alf-home') };
    const dataDir = path.join(scratch, 'data');
    const agentIds: string[] = [];
    for (const [i, files] of workspaces.entries()) {
      const workspace = path.join(scratch, `ws${i}`);
      for (const [rel, text] of Object.entries(files)) {
        fs.mkdirSync(path.dirname(path.join(workspace, rel)), { recursive: true });
        fs.writeFileSync(path.join(workspace, rel), text);
      }
      const run = spawnSync('npx', ['tsx', 'lib/cli/main.ts', 'sync', '-r', 'openclaw', '-w', workspace, '--data', dataDir], { cwd: ROOT, env, encoding: 'utf8' });
      if (run.status !== 0) throw new Error(`lineage sync failed: ${run.stderr}\n${run.stdout}`);
      agentIds.push((JSON.parse(run.stdout.trim().split('\n').pop()!) as { agent: { alf_agent_id: string } }).agent.alf_agent_id);
    }
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const server = spawn('npx', ['tsx', 'lib/cli/main.ts', 'serve', '--port', String(port), '--data', dataDir], {
      cwd: ROOT, env, stdio: ['ignore', 'ignore', 'inherit'], detached: true,
    });
    child = server;
    exited = new Promise((r) => server.once('exit', r));
    await expect.poll(async () => (await fetch(`${url}/api/agents`).catch(() => null))?.status ?? 0, { timeout: 600_000 }).toBe(200);
    await use({ url, agentIds });
  } finally {
    if (child && child.exitCode === null && child.pid) process.kill(-child.pid, 'SIGTERM');
    await exited;
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}
