/**
 * The staging files of a restore (`staged-write.ts`): `.alf-restore-<pid>-<n>.tmp` beside the file
 * each becomes, and the restore's marker `.alf-restore-<pid>.json` in the workspace's root, which it
 * writes before it stages anything and removes once every staged file is in place or removed. The
 * marker says who the restore is — its pid, the process's start time, the boot id of its kernel,
 * its pid namespace, the machine — and the directories it stages into.
 *
 * A restore killed between staging and renaming (SIGKILL, a power cut) leaves them in the
 * workspace. A sync never carries them (they are not the agent's files: the ledger would keep them
 * for ever) and says so, naming those in the runtime's raw directories, the root, and the
 * directories a marker names (one listing each, only when a marker is there). The next restore
 * removes a staging file only when its writer is KNOWN to be gone: same kernel and pid namespace
 * and the process gone or its pid now another process's (another start time), or the same machine
 * booted since. One of a restore in another pid namespace (a container sharing the workspace), on
 * another host (a network filesystem), or with no marker (an earlier lineage, a marker removed) is
 * kept, and named in a warning that says how to remove it by hand once sure.
 */
import { readdirSync, readFileSync, readlinkSync, realpathSync } from 'node:fs';
import { lstat, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { processGone } from '@/lib/core/process-alive';
import { walkFiles } from './walk';

const PREFIX = '.alf-restore-';
/** The exact shape `stagingName` makes: decimals without leading zeros, a pid > 0. */
const STAGING = /^\.alf-restore-([1-9][0-9]{0,9})-(0|[1-9][0-9]{0,9})\.tmp$/;
/** The exact shape `markerName` makes. */
const MARKER = /^\.alf-restore-([1-9][0-9]{0,9})\.json$/;
/** The largest pid a system gives (pid_t is 32 bits). */
const MAX_PID = 2 ** 31 - 1;

/** The name of the `n`th file a restore in process `pid` stages. */
export function stagingName(pid: number, n: number): string {
  return `${PREFIX}${pid}-${n}.tmp`;
}

/** The name of the marker of the restore in process `pid`, in the workspace's root. */
export function markerName(pid: number): string {
  return `${PREFIX}${pid}.json`;
}

function pidOf(name: string, shape: RegExp): number | null {
  if (!name.startsWith(PREFIX)) return null;
  const match = shape.exec(name);
  if (!match) return null;
  const pid = Number(match[1]);
  return pid <= MAX_PID ? pid : null;
}

/** The pid of the restore that staged a file of this name (a base name), or null when the name is not exactly one of ours. */
export function stagingPid(name: string): number | null {
  return pidOf(name, STAGING);
}

/** The pid of a restore's marker of this name (a base name), or null. */
export function markerPid(name: string): number | null {
  return pidOf(name, MARKER);
}

/** Whether a workspace-relative path names a restore's staging file: a name check only, what a sync does per file. */
export function isStagingPath(rel: string): boolean {
  if (!rel.includes(PREFIX)) return false;
  return stagingPid(baseName(rel)) !== null;
}

/**
 * Whether an archive's raw path names a restore's own file: a staging file anywhere, or a marker in
 * the root. A sync never carries them; restored from a hostile archive, a staging name could be the
 * one a restore stages another file under (its bytes renamed onto the wrong file), and a marker would
 * name directories for every later sync and restore to list.
 */
export function isRestoreStagingName(rel: string): boolean {
  return isStagingPath(rel) || (!rel.includes('/') && markerPid(rel) !== null);
}

const baseName = (rel: string) => rel.slice(rel.lastIndexOf('/') + 1);
const dirName = (rel: string) => (rel.includes('/') ? rel.slice(0, rel.lastIndexOf('/')) : '');

/** Who a process is, as far as another process on the same filesystem can tell: what a marker records. */
export interface WriterIdentity {
  pid: number;
  /** Field 22 of /proc/<pid>/stat (clock ticks since boot): a pid reused later has another. */
  start_time: string | null;
  /** /proc/sys/kernel/random/boot_id: one kernel, one boot (containers on it share it). */
  boot_id: string | null;
  /** The link /proc/self/ns/pid, `pid:[<inode>]`: the pid namespace the pid is a number in. */
  pid_ns: string | null;
  /** /etc/machine-id: the installed system, the same across its boots. */
  machine_id: string | null;
  host: string;
}

/** What a restore's marker holds: who it is and the workspace-relative directories it stages into ('' is the root). */
export interface RestoreMarker extends WriterIdentity {
  dirs: string[];
}

const readTrimmed = (file: string): string | null => {
  try {
    const text = readFileSync(file, 'utf8').trim();
    return text === '' ? null : text;
  } catch {
    return null;
  }
};

/** The start time of process `pid` as this pid namespace sees it (null: no such process, or no /proc). */
export function processStartTime(pid: number | 'self'): string | null {
  const stat = readTrimmed(`/proc/${pid}/stat`);
  if (stat === null) return null;
  // The command name (field 2) is in parentheses and may hold anything: fields are counted after its last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return fields[19] ?? null;
}

let self: Omit<WriterIdentity, 'pid' | 'start_time'> | undefined;

/** This process's identity (what its marker records). */
export function selfIdentity(): WriterIdentity {
  self ??= {
    boot_id: readTrimmed('/proc/sys/kernel/random/boot_id'),
    pid_ns: (() => {
      try {
        return readlinkSync('/proc/self/ns/pid');
      } catch {
        return null;
      }
    })(),
    machine_id: readTrimmed('/etc/machine-id') ?? readTrimmed('/var/lib/dbus/machine-id'),
    host: os.hostname(),
  };
  return { pid: process.pid, start_time: processStartTime('self'), ...self };
}

const isSafeDir = (dir: string) => dir === '' || (!dir.startsWith('/') && !dir.includes('\\') && !dir.includes('\0') && dir.split('/').every((s) => s !== '' && s !== '.' && s !== '..'));

/** A marker's JSON, checked (it is read from a workspace, which anyone may have written): null when it is not one. */
export function parseMarker(text: string, pid: number): RestoreMarker | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) return null;
  const m = value as Record<string, unknown>;
  const nullableString = (key: string) => m[key] === null || (typeof m[key] === 'string' && m[key] !== '');
  if (m.pid !== pid || typeof m.host !== 'string') return null;
  if (!['start_time', 'boot_id', 'pid_ns', 'machine_id'].every(nullableString)) return null;
  if (!Array.isArray(m.dirs) || !m.dirs.every((d) => typeof d === 'string' && isSafeDir(d))) return null;
  return {
    pid, start_time: m.start_time as string | null, boot_id: m.boot_id as string | null, pid_ns: m.pid_ns as string | null,
    machine_id: m.machine_id as string | null, host: m.host, dirs: [...new Set(m.dirs as string[])].sort(),
  };
}

/** The markers in a workspace's root (from a listing of it), by pid; one that cannot be read or parsed is left out (its files' writer is unknown). */
function readMarkers(workspace: string, names: readonly string[]): Map<number, RestoreMarker> {
  const markers = new Map<number, RestoreMarker>();
  for (const name of names) {
    const pid = markerPid(name);
    if (pid === null) continue;
    const text = readTrimmed(path.join(workspace, name));
    const marker = text === null ? null : parseMarker(text, pid);
    if (marker) markers.set(pid, marker);
  }
  return markers;
}

/** Whether a restore's writer is running, KNOWN to be gone, or neither, and why. */
export type WriterState = { state: 'running' } | { state: 'ended'; why: string } | { state: 'unknown'; why: string };

/**
 * What is known of the restore in process `pid` from its marker (null: none). Ended only when it
 * is proven: the same kernel (boot id) and pid namespace, and no process of that pid or one that
 * started at another time (the pid reused); or the same machine (machine id and host name) booted
 * since. Without /proc (not Linux) on the same host, a pid no process has.
 */
export function writerState(pid: number, marker: RestoreMarker | null, me: WriterIdentity = selfIdentity()): WriterState {
  if (marker === null) return { state: 'unknown', why: `no marker (${markerName(pid)}) says where process ${pid} ran: an earlier lineage's restore, or one whose marker was removed` };
  const sameKernel = marker.boot_id !== null && marker.boot_id === me.boot_id;
  if (sameKernel && marker.pid_ns !== null && marker.pid_ns === me.pid_ns) {
    if (pid === me.pid) return marker.start_time === me.start_time ? { state: 'running' } : { state: 'ended', why: `its process ${pid} is no longer running` };
    if (processGone(pid)) return { state: 'ended', why: `its process ${pid} is no longer running` };
    const start = processStartTime(pid);
    if (start !== null && marker.start_time !== null && start !== marker.start_time) return { state: 'ended', why: `its process ${pid} is no longer running: that pid is another process's now` };
    return { state: 'running' };
  }
  if (sameKernel) return { state: 'unknown', why: `process ${pid} ran in another pid namespace (${marker.pid_ns ?? 'unknown'}) on this machine — a container sharing the workspace? — where this one cannot see whether it still runs` };
  if (marker.boot_id !== null && me.boot_id !== null && marker.machine_id !== null && marker.machine_id === me.machine_id && marker.host === me.host) {
    return { state: 'ended', why: `its process ${pid} ran before this machine last started` };
  }
  if (marker.boot_id === null && me.boot_id === null && marker.host === me.host) {
    return processGone(pid) ? { state: 'ended', why: `its process ${pid} is no longer running` } : { state: 'running' };
  }
  return { state: 'unknown', why: `process ${pid} ran on ${marker.host === me.host ? 'another machine named' : 'host'} ${marker.host}, where this one cannot see whether it still runs` };
}

/** What is known of each writer in a workspace: from its markers (a listing of its root). */
export function writerStates(workspace: string): (pid: number) => WriterState {
  let names: string[];
  try {
    names = readdirSync(workspace);
  } catch {
    names = [];
  }
  const markers = readMarkers(workspace, names);
  const me = selfIdentity();
  const known = new Map<number, WriterState>();
  return (pid) => {
    if (!known.has(pid)) known.set(pid, writerState(pid, markers.get(pid) ?? null, me));
    return known.get(pid)!;
  };
}

const covers = (walked: readonly string[], dir: string) => walked.some((d) => dir === d || dir.startsWith(`${d}/`));

/**
 * The staging files a runtime's walk does not list: those directly in the workspace's root (from
 * one listing of it, which a runtime's export does not otherwise make: it looks its root files up
 * by name), and those in the directories a marker there names outside `walked` (one listing each,
 * and only when there is a marker: a restore writes files through a link into any directory of the
 * workspace, and an archive's raw files may be anywhere in it).
 */
export function rootStagingFiles(workspace: string, walked: readonly string[] = []): string[] {
  let entries;
  try {
    entries = readdirSync(workspace, { withFileTypes: true });
  } catch {
    return [];
  }
  const found = entries.filter((e) => e.isFile() && stagingPid(e.name) !== null).map((e) => e.name);
  const markers = entries.some((e) => markerPid(e.name) !== null) ? readMarkers(workspace, entries.map((e) => e.name)) : new Map<number, RestoreMarker>();
  const dirs = new Set([...markers.values()].flatMap((m) => m.dirs).filter((dir) => dir !== '' && !covers(walked, dir)));
  if (dirs.size > 0) {
    let root: string;
    try {
      root = realpathSync(workspace);
    } catch {
      return found.sort();
    }
    for (const dir of dirs) {
      try {
        for (const e of readdirSync(path.join(root, ...dir.split('/')), { withFileTypes: true })) {
          if (e.isFile() && stagingPid(e.name) !== null) found.push(`${dir}/${e.name}`);
        }
      } catch {
        // gone, or not a directory any more: nothing of ours to list there
      }
    }
  }
  return [...new Set(found)].sort();
}

/**
 * Of every file of a workspace (workspace-relative paths: a whole-tree listing the caller made),
 * the staging files a sync names: those in its root, under `walked`, or in a directory a marker in
 * its root names — what `rootStagingFiles` and the walk find together.
 */
export function stagingAmong(workspace: string, rels: readonly string[], walked: readonly string[]): string[] {
  const staging = rels.filter(isStagingPath);
  if (staging.length === 0) return [];
  const markers = readMarkers(workspace, rels.filter((rel) => !rel.includes('/')));
  const dirs = new Set([...markers.values()].flatMap((m) => m.dirs));
  return staging.filter((rel) => dirName(rel) === '' || covers(walked, dirName(rel)) || dirs.has(dirName(rel))).sort();
}

/** How many staging files a warning names before it says how many more there are. */
const NAMED = 10;

/** A path as a POSIX shell word. */
const shellWord = (s: string) => (/^[A-Za-z0-9_./@%+=:,-]+$/.test(s) ? s : `'${s.replaceAll("'", `'\\''`)}'`);

/**
 * What a sync (or another command that writes the workspace) says of a restore's staging files it
 * left out (workspace-relative paths): one warning per restore process that staged them, in pid
 * order, naming the files, whether that restore is running, KNOWN to be gone, or neither — and
 * then how to remove them by hand once sure.
 */
export function stagingWarnings(workspace: string, rels: readonly string[], stateOf: (pid: number) => WriterState = rels.length > 0 ? writerStates(workspace) : () => ({ state: 'running' })): string[] {
  const byPid = new Map<number, string[]>();
  for (const rel of [...new Set(rels)].sort()) {
    const pid = stagingPid(baseName(rel));
    if (pid === null) continue;
    byPid.set(pid, [...(byPid.get(pid) ?? []), rel]);
  }
  return [...byPid].sort(([a], [b]) => a - b).map(([pid, files]) => {
    const named = files.length > NAMED ? `${files.slice(0, NAMED).join(', ')} and ${files.length - NAMED} more` : files.join(', ');
    const one = files.length === 1;
    const count = `${files.length} staging file${one ? '' : 's'}`;
    const [are, them] = one ? ['is', 'it'] : ['are', 'them'];
    const writer = stateOf(pid);
    if (writer.state === 'running') return `a restore in process ${pid} is writing this workspace: its ${count} (${named}) ${are} not synced; sync again once it has finished`;
    if (writer.state === 'ended') {
      return `a restore into this workspace was interrupted (${writer.why}) and left ${count}, which ${are} not synced: ${named}; the workspace may be only partly restored: run the restore again (with --replace if it asks for it), which removes ${them}`;
    }
    const dirs = [...new Set(files.map(dirName))].sort();
    const rm = [...dirs.map((dir) => `${shellWord(path.join(workspace, ...dir.split('/')))}/${PREFIX}${pid}-*.tmp`), shellWord(path.join(workspace, markerName(pid)))].join(' ');
    return `a restore (${writer.why}) left ${count} in this workspace, which ${are} not synced and ${are} kept, as it may still be writing ${them}: ${named}; once sure it has ended, remove ${them} by hand (rm -f -- ${rm}) and run the restore again (with --replace if it asks for it)`;
  });
}

/**
 * A runtime's staging files in a workspace: in its root, in the directories a marker names and,
 * recursively, in `dirs` (the directories its export walks) — what its sync leaves out and warns of.
 * A workspace not made yet (a restore's `-w` creates it) holds none.
 */
export async function findStagingFiles(workspace: string, dirs: readonly string[]): Promise<string[]> {
  if ((await lstat(workspace).catch(() => null)) === null) return [];
  const found = rootStagingFiles(workspace, dirs);
  for (const dir of dirs) found.push(...(await walkFiles(workspace, dir)).filter(isStagingPath));
  return [...new Set(found)].sort();
}

/** What `removeDeadStaging` did: the files removed, and warnings of those kept (their writer not known to be gone). */
export interface StagingCleanup {
  removed: string[];
  warnings: string[];
}

/**
 * Removes the staging files (`findStagingFiles`) of a restore KNOWN to have ended (`writerState`),
 * then its marker: regular files of exactly our names only (a link or a directory of that name is
 * no file of ours). Those of a writer that may still run are kept and warned of. Paths sorted.
 */
export async function removeDeadStaging(workspace: string, dirs: readonly string[], stateOf: (pid: number) => WriterState = writerStates(workspace)): Promise<StagingCleanup> {
  const removed: string[] = [];
  const kept: string[] = [];
  const regularFile = async (abs: string) => (await lstat(abs).catch(() => null))?.isFile() === true;
  for (const rel of await findStagingFiles(workspace, dirs)) {
    const abs = path.join(workspace, ...rel.split('/'));
    if (!(await regularFile(abs))) continue;
    if (stateOf(stagingPid(baseName(rel))!).state !== 'ended') {
      kept.push(rel);
      continue;
    }
    await rm(abs, { force: true });
    removed.push(rel);
  }
  // The markers of ended restores, their files gone: nothing of them is left to name.
  for (const name of await readdir(workspace).catch(() => [] as string[])) {
    const pid = markerPid(name);
    if (pid === null || stateOf(pid).state !== 'ended' || kept.some((rel) => stagingPid(baseName(rel)) === pid)) continue;
    if (await regularFile(path.join(workspace, name))) await rm(path.join(workspace, name), { force: true });
  }
  return { removed, warnings: stagingWarnings(workspace, kept, stateOf) };
}
