import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { AlfSnapshot } from '@/lib/core/archive/types';
import type { Clock } from '@/lib/core/clock';
import { getAdapter } from './index';
import { walkFiles } from './shared';
import type { ImportOptions, ImportResult, Runtime } from './types';

/**
 * The one writer of a restored workspace: `lineage restore` (`--out` and live) and the dashboard's
 * `.tar.gz`/`.zip` downloads of ZeroClaw and Hermes agents both write through here, so a download
 * at N holds what `lineage restore --out` writes at N (the database rebuilt from the records, the
 * raw files byte-exact, the sidecars left out).
 */
export function writeRestoredWorkspace(runtime: Runtime, opts: ImportOptions): Promise<ImportResult> {
  return getAdapter(runtime).importSnapshot(opts);
}

/** One file of a restored workspace: its workspace-relative path and bytes. */
export interface RestoredFile {
  name: string;
  data: Buffer;
}

/**
 * What `lineage restore --out` writes for `snapshot`, read back in path order (code units). It is
 * written into a private temporary directory, which is always removed. `clock` is the time the
 * adapter stamps where the archive carries none (a ZeroClaw agent row without `created_at`); a
 * download passes the sequence's sync time, so the same sequence gives the same bytes. SQLite
 * writes the same file for the same statements in the same order with the same library, which
 * the adapters follow (rows in the snapshot's record order, rollback journal, no clock in a row
 * the archive describes).
 */
export async function restoredWorkspaceFiles(args: { runtime: Runtime; snapshot: AlfSnapshot; clock: Clock }): Promise<RestoredFile[]> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'lineage-workspace-'));
  try {
    await writeRestoredWorkspace(args.runtime, { snapshot: args.snapshot, target: dir, live: false, clock: args.clock });
    const files: RestoredFile[] = [];
    for (const name of await walkFiles(dir)) files.push({ name, data: await readFile(path.join(dir, ...name.split('/'))) });
    return files;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
