/**
 * The start of a store's compaction off the sync's path (compact.ts). Loads nothing but Node's own
 * modules, and node:child_process (with node:net under it, ~2.5 ms of CPU) only when it starts
 * one: a sync pays for the spawn alone, and a sync that starts none for nothing.
 */
import path from 'node:path';
import { nodeBuiltin } from '@/lib/core/builtin';
import { packageRoot } from '@/lib/package-root';

const childProcess = nodeBuiltin<typeof import('node:child_process')>('node:child_process');

/**
 * Starts `lineage state compact --agent ID --alf-dir DIR` detached (its own session, stdio ignored,
 * `unref`'d, run from `/`): the sync returns without waiting.
 */
export function startBackgroundCompaction(alfHome: string, agentId: string): void {
  const child = childProcess().spawn(process.execPath, [path.join(packageRoot(), 'bin', 'lineage.cjs'), 'state', 'compact', '--agent', agentId, '--alf-dir', path.resolve(alfHome)], {
    detached: true, stdio: 'ignore', cwd: '/', env: process.env,
  });
  // A spawn that fails leaves the log as it is: the next sync that appends starts another.
  child.on('error', () => undefined);
  child.unref();
}
