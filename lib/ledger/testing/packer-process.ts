/**
 * The background packer as a real process, for the race tests: `lineage pack-blobs` from the
 * package's bin (what `startBackgroundPacker` runs), with test environment added
 * (`LINEAGE_PACKER_STOP_AT`), and ways to see it stopped and to wait for it. Not a test.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const BIN = path.resolve(__dirname, '../../../bin/lineage.mjs');

export function startPackerProcess(dataDir: string, env: Record<string, string> = {}): { child: ChildProcess; exited: Promise<number | null> } {
  const child = spawn(process.execPath, [BIN, 'pack-blobs', '--data', dataDir], { stdio: 'ignore', env: { ...process.env, ...env } });
  const exited = new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => resolve(code));
  });
  return { child, exited };
}

/** Process `pid`'s state letter in /proc (Linux), or null when there is no such process. */
function stateOf(pid: number): string | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.charAt(stat.lastIndexOf(')') + 2);
  } catch {
    return null;
  }
}

/** Whether process `pid` is stopped (SIGSTOP): state `T`. */
export const isStopped = (pid: number): boolean => stateOf(pid) === 'T';

/** Whether process `pid` has exited: gone, or a zombie (whoever reaps it). */
export const hasExited = (pid: number): boolean => {
  const state = stateOf(pid);
  return state === null || state === 'Z';
};

export async function waitUntil(what: string, ok: () => boolean, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The announced step of the packer (pack-intents.ts) in `root`: the blob and its bases. */
export function announcedStep(root: string): { key: string; bases: string[] } | null {
  const name = fs.readdirSync(root).find((n) => /\.packing-\d+$/.test(n));
  return name ? JSON.parse(fs.readFileSync(path.join(root, name), 'utf8')) as { key: string; bases: string[] } : null;
}
