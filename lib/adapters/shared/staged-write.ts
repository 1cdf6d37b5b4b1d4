import { chmod, mkdir, realpath, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { AdapterError } from './errors';
import { stagingName } from './restore-staging';

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
 * it is to replace; a link (which `assertWritable` lets through only inside the workspace) is
 * written through: its target is what gets replaced. Nothing is in place until `commit`, so a
 * failure while staging — a full disk above all — removes what was staged and leaves the workspace
 * as it was: a full disk is `restore_incomplete` saying so. The caller checks the paths first.
 */
export async function stageFiles(target: string, files: ReadonlyMap<string, Uint8Array>): Promise<StagedFiles> {
  const staged: { temp: string; dest: string }[] = [];
  const madeDirs: string[] = [];
  const discard = async (): Promise<void> => {
    for (const { temp } of staged.splice(0)) await rm(temp, { force: true });
    for (const dir of madeDirs.splice(0).reverse()) await rm(dir, { recursive: true, force: true });
  };
  try {
    for (const [rel, bytes] of files) {
      const abs = path.join(target, ...rel.split('/'));
      const made = await mkdir(path.dirname(abs), { recursive: true });
      if (made !== undefined) madeDirs.push(made);
      const existing = await stat(abs).catch(() => null);
      const dest = existing ? await realpath(abs) : abs;
      const temp = path.join(path.dirname(dest), stagingName(process.pid, staged.length));
      staged.push({ temp, dest });
      await writeFile(temp, bytes);
      if (existing) await chmod(temp, existing.mode & 0o7777);
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
      }
    },
    discard,
  };
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
