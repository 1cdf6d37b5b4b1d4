/**
 * The staging files of a restore (`staged-write.ts`): `.alf-restore-<pid>-<n>.tmp` beside the file
 * each becomes. A restore killed between staging and renaming (SIGKILL, a power cut) leaves them in
 * the workspace. A sync never carries them (they are not the agent's files: the ledger would keep
 * them for ever) and says so; the next restore into the workspace removes those of a process that
 * is no longer running — only files of exactly that shape, never one a running process (its own
 * included) may still rename into place.
 */
import { readdirSync } from 'node:fs';
import { lstat, rm } from 'node:fs/promises';
import path from 'node:path';
import { walkFiles } from './walk';

const PREFIX = '.alf-restore-';
/** The exact shape `stagingName` makes: decimals without leading zeros, a pid > 0. */
const STAGING = /^\.alf-restore-([1-9][0-9]{0,9})-(0|[1-9][0-9]{0,9})\.tmp$/;
/** The largest pid a system gives (pid_t is 32 bits). */
const MAX_PID = 2 ** 31 - 1;

/** The name of the `n`th file a restore in process `pid` stages. */
export function stagingName(pid: number, n: number): string {
  return `${PREFIX}${pid}-${n}.tmp`;
}

/** The pid of the restore that staged a file of this name (a base name), or null when the name is not exactly one of ours. */
export function stagingPid(name: string): number | null {
  if (!name.startsWith(PREFIX)) return null;
  const match = STAGING.exec(name);
  if (!match) return null;
  const pid = Number(match[1]);
  return pid <= MAX_PID ? pid : null;
}

/** Whether a workspace-relative path names a restore's staging file: a name check only, what a sync does per file. */
export function isStagingPath(rel: string): boolean {
  if (!rel.includes(PREFIX)) return false;
  return stagingPid(rel.slice(rel.lastIndexOf('/') + 1)) !== null;
}

/**
 * Whether process `pid` may still be running (this one, or any `kill(pid, 0)` finds: a process of
 * another user answers EPERM). A pid reused since a restore died reads as running: its files are
 * then left, which is the safe side.
 */
export function processRunning(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

/**
 * The staging files directly in the workspace's root (those of its root files), found from one
 * listing of it: a runtime's export looks its root files up by name, so it would not see them.
 */
export function rootStagingFiles(workspace: string): string[] {
  let entries;
  try {
    entries = readdirSync(workspace, { withFileTypes: true });
  } catch {
    return [];
  }
  return entries.filter((e) => e.isFile() && stagingPid(e.name) !== null).map((e) => e.name).sort();
}

/** How many staging files a warning names before it says how many more there are. */
const NAMED = 10;

/**
 * What a sync says of the staging files it left out (workspace-relative paths): one warning per
 * restore process that staged them, in pid order, naming the files.
 */
export function stagingWarnings(rels: readonly string[], running: (pid: number) => boolean = processRunning): string[] {
  const byPid = new Map<number, string[]>();
  for (const rel of [...rels].sort()) {
    const pid = stagingPid(rel.slice(rel.lastIndexOf('/') + 1));
    if (pid === null) continue;
    byPid.set(pid, [...(byPid.get(pid) ?? []), rel]);
  }
  return [...byPid].sort(([a], [b]) => a - b).map(([pid, files]) => {
    const named = files.length > NAMED ? `${files.slice(0, NAMED).join(', ')} and ${files.length - NAMED} more` : files.join(', ');
    const one = files.length === 1;
    const count = `${files.length} staging file${one ? '' : 's'}`;
    const [are, them] = one ? ['is', 'it'] : ['are', 'them'];
    return running(pid)
      ? `a restore in process ${pid} is writing this workspace: its ${count} (${named}) ${are} not synced; sync again once it has finished (if process ${pid} is no restore, the restore was interrupted: run it again, which removes ${them})`
      : `a restore into this workspace was interrupted (its process ${pid} is no longer running) and left ${count}, which ${are} not synced: ${named}; the workspace may be only partly restored: run the restore again (with --replace if it asks for it), which removes ${them}`;
  });
}

/**
 * A runtime's staging files in a workspace: in its root and, recursively, in `dirs` (the
 * directories its export walks) — what its sync leaves out and warns of.
 */
export async function findStagingFiles(workspace: string, dirs: readonly string[]): Promise<string[]> {
  const found = rootStagingFiles(workspace);
  for (const dir of dirs) found.push(...(await walkFiles(workspace, dir)).filter(isStagingPath));
  return found.sort();
}

/**
 * Removes the staging files (`findStagingFiles`) a restore left whose process is no longer
 * running: regular files of exactly our names only (a link or a directory of that name is no file
 * of ours). Returns the paths removed, sorted.
 */
export async function removeDeadStaging(workspace: string, dirs: readonly string[], running: (pid: number) => boolean = processRunning): Promise<string[]> {
  const removed: string[] = [];
  for (const rel of await findStagingFiles(workspace, dirs)) {
    const pid = stagingPid(rel.slice(rel.lastIndexOf('/') + 1))!;
    if (running(pid)) continue;
    const abs = path.join(workspace, ...rel.split('/'));
    const info = await lstat(abs).catch(() => null);
    if (!info?.isFile()) continue;
    await rm(abs, { force: true });
    removed.push(rel);
  }
  return removed;
}
