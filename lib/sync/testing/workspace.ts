import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { localTarget } from '../local-target';
import { syncWorkspace } from '../sync';

/** A temp directory tree for client-flow tests: a workspace, an ALF home and a data dir. */
export async function makeSandbox(prefix = 'lineage-sync-') {
  const root = await fs.mkdtemp(path.join(os.tmpdir(), prefix));
  const sandbox = {
    root,
    workspace: path.join(root, 'ws'),
    alfHome: path.join(root, 'alf-home'),
    dataDir: path.join(root, 'data'),
    async write(rel: string, content: string | Uint8Array) {
      const file = path.join(sandbox.workspace, rel);
      await fs.mkdir(path.dirname(file), { recursive: true });
      await fs.writeFile(file, content);
    },
    async remove(rel: string) {
      await fs.rm(path.join(sandbox.workspace, rel), { force: true });
    },
    // A sync's detached work (the history fold's `lineage index --catch-up`, the client state's
    // compaction) may still be closing files in the data directory as a test ends: its last file
    // can appear beside the removal (ENOTEMPTY), which Node's rm tries again a few times.
    cleanup: () => fs.rm(root, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 }),
  };
  await fs.mkdir(sandbox.workspace, { recursive: true });
  return sandbox;
}

/** Every file under a directory as relative path → bytes, control files excluded. */
export async function readTree(dir: string, exclude: readonly string[] = ['.alf-agent-id', '.alf-synced.json']): Promise<Map<string, Buffer>> {
  const out = new Map<string, Buffer>();
  async function walk(rel: string) {
    for (const entry of await fs.readdir(path.join(dir, rel), { withFileTypes: true })) {
      const child = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory()) await walk(child);
      else if (!exclude.includes(child)) out.set(child, await fs.readFile(path.join(dir, child)));
    }
  }
  await walk('');
  return new Map([...out].sort(([a], [b]) => (a < b ? -1 : 1)));
}

/** A clock that advances one minute per call, from a fixed start. */
export function steppingClock(start = Date.parse('2026-11-01T09:00:00Z')) {
  let t = start;
  return () => new Date((t += 60_000));
}

/**
 * A sandbox whose workspace holds an OpenClaw `MEMORY.md`, with a sync of it into the sandbox's
 * data directory (a stepping clock); its cleanup is pushed onto `cleanups` (run after each test).
 */
export async function openclawSyncSandbox(cleanups: (() => Promise<void>)[]) {
  const sb = await makeSandbox();
  cleanups.push(sb.cleanup);
  const clock = steppingClock();
  const target = localTarget(sb.dataDir, clock);
  const alfHome = path.join(sb.alfHome, '.alf');
  await sb.write('MEMORY.md', '# Memory\n\n## Owner\nDana owns billing.\n');
  const sync = () => syncWorkspace({ runtime: 'openclaw', workspace: sb.workspace, target, alfHome, clock });
  return { sb, sync, target, alfHome, clock };
}

/**
 * A sandbox for a history test: an OpenClaw sync of its workspace into its own data directory, with a
 * stepping clock. The caller writes files and calls `sync()` once per sequence; `sb.cleanup` removes it.
 */
export async function openclawHistorySandbox(prefix: string) {
  const sb = await makeSandbox(prefix);
  const clock = steppingClock();
  const target = localTarget(sb.dataDir, clock);
  const sync = () => syncWorkspace({ runtime: 'openclaw', workspace: sb.workspace, target, alfHome: sb.alfHome, clock });
  return { sb, clock, target, sync };
}
