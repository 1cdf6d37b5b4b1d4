import { chmod, mkdir, readFile, realpath, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { AdapterError } from './errors';
import { markerName, parseMarker, selfIdentity, stagingName, writerState, type RestoreMarker } from './restore-staging';

/** Files written under temporary names beside where they go, not yet in place. */
export interface StagedFiles {
  /** Workspace-relative paths of the staged files, sorted. */
  written: string[];
  /**
   * Moves every staged file into place, in path order (renames: no more space needed); one that
   * fails removes the staged files not yet in place.
   */
  commit(): Promise<void>;
  /** Removes the temporary files, and the directories staging created. */
  discard(): Promise<void>;
}

/**
 * Writes each file under a temporary name in the directory it goes to, keeping the mode of a file
 * it is to replace; a link (which `assertWritable` lets through only inside the workspace, and a
 * restore only to a file its runtime would carry under another name: `assertNotThroughRefusedLink`)
 * is written through: its target is what gets replaced. Nothing is in place until `commit`, so a
 * failure while staging — a full disk above all — removes what was staged and leaves the workspace
 * as it was: a full disk is `restore_incomplete` saying so. The caller checks the paths first.
 */
export async function stageFiles(target: string, files: ReadonlyMap<string, Uint8Array>): Promise<StagedFiles> {
  const staged: { temp: string; dest: string }[] = [];
  const madeDirs: string[] = [];
  let marker: string | null = null;
  // The marker goes last, once nothing it names is left under a staging name.
  const release = async (): Promise<void> => {
    if (marker !== null) await rm(marker, { force: true });
    marker = null;
  };
  const discard = async (): Promise<void> => {
    for (const { temp } of staged.splice(0)) await rm(temp, { force: true });
    for (const dir of madeDirs.splice(0).reverse()) await rm(dir, { recursive: true, force: true });
    await release();
  };
  try {
    // Where each file goes (a link written through: beside its target), the directories made
    // first: the marker names every directory the restore stages into before the first file is.
    const dests: { bytes: Uint8Array; dest: string; mode: number | null }[] = [];
    if (files.size > 0) {
      const made = await mkdir(target, { recursive: true });
      if (made !== undefined) madeDirs.push(made);
    }
    for (const [rel, bytes] of files) {
      const abs = path.join(target, ...rel.split('/'));
      const made = await mkdir(path.dirname(abs), { recursive: true });
      if (made !== undefined) madeDirs.push(made);
      const existing = await stat(abs).catch(() => null);
      dests.push({ bytes, dest: existing ? await realpath(abs) : abs, mode: existing ? existing.mode & 0o7777 : null });
    }
    if (dests.length > 0) {
      const root = await realpath(target);
      const dirs = new Set<string>();
      for (const { dest } of dests) dirs.add(path.relative(root, await realpath(path.dirname(dest))).split(path.sep).join('/'));
      marker = await claimMarker(target, [...dirs].sort());
    }
    for (const { bytes, dest, mode } of dests) {
      const temp = path.join(path.dirname(dest), stagingName(process.pid, staged.length));
      staged.push({ temp, dest });
      await writeFile(temp, bytes);
      if (mode !== null) await chmod(temp, mode);
    }
  } catch (error) {
    await discard();
    throw fullDiskError(target, error) ?? error;
  }
  return {
    written: [...files.keys()],
    commit: async () => {
      // A rename that fails (something put in the way since the paths were checked) leaves the
      // files before it in place: those from it on are removed, not left under their staging names.
      let i = 0;
      try {
        for (; i < staged.length; i++) await rename(staged[i]!.temp, staged[i]!.dest);
      } catch (error) {
        for (const { temp } of staged.slice(i)) await rm(temp, { force: true });
        throw error;
      } finally {
        staged.length = 0;
        madeDirs.length = 0;
        await release();
      }
    },
    discard,
  };
}

/**
 * Writes this restore's marker (`restore-staging.ts`) in the workspace's root, created exclusively:
 * one there of the same pid is another restore's — in another pid namespace or on another host,
 * whose staging names would be ours — replaced only when that restore is known to have ended, and
 * otherwise a refusal, before anything is staged. Returns its path.
 */
async function claimMarker(target: string, dirs: string[]): Promise<string> {
  const file = path.join(target, markerName(process.pid));
  const body: RestoreMarker = { ...selfIdentity(), dirs };
  const text = `${JSON.stringify(body)}\n`;
  try {
    await writeFile(file, text, { flag: 'wx' });
    return file;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const other = parseMarker(await readFile(file, 'utf8').catch(() => ''), process.pid);
  const state = writerState(process.pid, other);
  if (other !== null && state.state === 'ended') {
    await rm(file, { force: true });
    await writeFile(file, text, { flag: 'wx' });
    return file;
  }
  throw new AdapterError('restore_incomplete', `cannot restore into ${target}: another restore of the same process id (${process.pid}) has its marker ${markerName(process.pid)} there${state.state === 'unknown' ? ` (${state.why})` : ' and is running'}; nothing was written`, {
    hint: `let that restore finish, then restore again; if it has ended, remove ${file} and its staging files (.alf-restore-${process.pid}-*.tmp) by hand first`,
  });
}

/** The error of a restore that ran out of space (ENOSPC, or a quota), or null for any other. */
export function fullDiskError(target: string, error: unknown): AdapterError | null {
  const code = (error as { code?: unknown } | null)?.code;
  if (code !== 'ENOSPC' && code !== 'EDQUOT' && code !== 'SQLITE_FULL') return null;
  return new AdapterError('restore_incomplete', `cannot restore into ${target}: its disk is full (${String(code)}); nothing was changed`, {
    cause: error,
    hint: 'free some space on that disk, then restore again',
  });
}
