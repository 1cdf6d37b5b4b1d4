/**
 * `lineage watch`: a process that stays. It syncs the workspace whenever its files have changed
 * and then been quiet for `--quiet` ms (and every `--interval` seconds in any case), and it serves every
 * `lineage sync` of the same workspace and target run meanwhile (lib/cli/resident.ts): such a sync
 * runs here, in code already compiled and with the target already open, and its output goes back
 * to the `lineage sync` process as if it had run there. `--on-demand` only serves.
 *
 * A watch holds no lock between syncs: each sync takes the agent's lock as any sync does, so other
 * processes' syncs, restores and compactions go on as before. Its stdout is one JSON line per sync
 * it ran (the `lineage sync` output, or the error payload), its stderr their progress.
 */
import path from 'node:path';
import type { Command } from 'commander';
import { askResident, removeGoneSockets, residentRequest, residentRunDir, trustedSockets } from '@/bin/resident-client.cjs';
import { NEVER_RAW_FILES } from '@/lib/adapters/shared/sync-marker';
import { systemClock } from '@/lib/core/clock';
import { resolveDataDir } from '@/lib/ledger/data-dir';
import { SyncError } from '@/lib/sync/errors';
import { alfDir } from '@/lib/sync/state';
import { KeysAhead } from '@/lib/sync/store/keys-ahead';
import { syncWorkspace } from '@/lib/sync/sync';
import { resolveTarget, type ResolvedTarget } from '@/lib/sync/targets';
import { failureOutput, progress } from '../output';
import { clientStateDir, parseRuntime, parseRuntimeAgent, parseSequence, requireOption, runtimeWorkspace } from '../parse-options';
import { refuseUnnamedTargetOfReferenceState } from '../reference-config';
import { cliStamp, listenResident, syncIdentity, syncKey, type CommandOutput } from '../resident';
import { checkTargetFlags } from '../target';
import { watchTree, type TreeWatch } from '../watch-tree';
import { workspaceSyncOptions, type SyncFlags } from './sync';

/** The longest delay a Node timer takes (2^31-1 ms, about 24.8 days). */
const MAX_TIMER_MS = 2 ** 31 - 1;
/** A failed sync that passes is tried again after this many seconds, doubled each time it fails again, at most RETRY_MAX_SECONDS. */
const RETRY_FIRST_SECONDS = 5;
const RETRY_MAX_SECONDS = 300;

interface WatchFlags extends SyncFlags {
  onDemand?: boolean;
  quiet: string;
  interval: string;
}

export function registerWatchCommand(program: Command): void {
  workspaceSyncOptions(
    program
      .command('watch')
      .description('stay running: sync the workspace whenever its files change, and run every `lineage sync` of the same workspace and target (warm, in this process)'),
  )
    .option('--on-demand', 'do not sync by itself: only run the `lineage sync`s of this workspace (whose changed files an OpenClaw watch still keys ahead)', false)
    .option('--quiet <ms>', 'sync once the files have not changed for this long', '1000')
    .option('--interval <s>', 'and sync at least this often, seconds (0: only when files change)', '60')
    .action(async (flags: WatchFlags) => {
      await watchWorkspace(flags);
    });
}

/** The `lineage sync` arguments of the sync a watch runs (what another watch is probed with). */
function syncArgv(flags: SyncFlags): string[] {
  const argv = ['-r', parseRuntime(flags.runtime), '-w', requireOption(flags.workspace, '-w/--workspace')];
  const pairs: [string, string | undefined][] = [
    ['--runtime-agent', flags.runtimeAgent], ['--data', flags.data], ['--database-url', flags.databaseUrl],
    ['--blob-url', flags.blobUrl], ['--server', flags.server], ['--key', flags.key],
  ];
  for (const [flag, value] of pairs) if (value !== undefined) argv.push(flag, value);
  return argv;
}

/** The target a watch's flags name, in words (no key, no store's URL: they may hold secrets). */
function describeTarget(flags: SyncFlags): string {
  if (flags.server !== undefined) return `--server ${flags.server}`;
  if (flags.databaseUrl !== undefined || flags.blobUrl !== undefined) return 'a scale-out store';
  return `--data ${resolveDataDir(flags.data, process.env, process.cwd())}`;
}

async function watchWorkspace(flags: WatchFlags): Promise<void> {
  // Asked to stop at any point (its first sync included), it lets a running sync finish and stops.
  const stopped = new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  // Node's timers hold at most 2^31-1 ms: a longer one fires at once, and so would sync without end.
  const quietMs = parseSequence(flags.quiet, '--quiet', MAX_TIMER_MS)!;
  const intervalMs = parseSequence(flags.interval, '--interval', Math.floor(MAX_TIMER_MS / 1000))! * 1000;
  const runtime = parseRuntime(flags.runtime);
  const runtimeAgent = parseRuntimeAgent(runtime, flags.runtimeAgent);
  checkTargetFlags(flags);
  const alfHome = clientStateDir(alfDir());
  // A path under a file was an internal error here (ENOTDIR from the stat).
  const workspace = await runtimeWorkspace(path.resolve(requireOption(flags.workspace, '-w/--workspace')), runtime);
  const runDir = residentRunDir();
  const argv = syncArgv(flags);
  // The sockets of watches that are gone (killed with SIGKILL) are removed; a live one's never.
  removeGoneSockets(runDir);
  for (const socket of trustedSockets(runDir)) {
    const answer = await askResident(socket, residentRequest(argv, { probe: true, stamp: cliStamp() }));
    if ('lost' in answer) {
      throw new SyncError('watch_running', `another lineage watch (pid ${answer.lost}) already syncs ${workspace} to this target`, 'stop it first, or let it go on');
    }
    // A watch of this workspace to another target (or key, or settings): the two would take this
    // machine's sync state from each other, and every sync of the first would fail target_changed.
    if ('watching' in answer && answer.watching) {
      const { pid, target } = answer.watching;
      throw new SyncError('watch_running',
        `another lineage watch (pid ${pid}) already syncs ${workspace}, to ${target}; this one names another target, key or settings (${describeTarget(flags)}), and the two would take this machine's sync state of the workspace from each other (each sync of one then fails target_changed)`,
        `to sync to ${describeTarget(flags)} instead, stop that watch first (Ctrl-C where it runs, or kill ${pid}), then start this one; to keep it, start no second watch of this workspace`);
    }
  }
  // The detached processes a sync's upload asks for start once its output is relayed (or printed).
  const detached: (() => void)[] = [];
  const startDetached = () => {
    for (const start of detached.splice(0)) start();
  };
  const target: ResolvedTarget = await resolveTarget(flags, process.env, { startDetached: (start) => detached.push(start) }, 'lineage watch');
  // No target named, and the agent's state is the reference CLI's for the service its config names:
  // refused before the first sync, as `lineage sync` refuses it (reference-config.ts).
  await refuseUnnamedTargetOfReferenceState({ flags, env: process.env, alfHome, runtime, workspace, runtimeAgent, dataDir: target.label, rebase: false, command: 'lineage watch' });
  // A `lineage sync` run here for another process names what that process ran when the server refuses
  // its key (httpTarget's command): over HTTP a target of its own, the same server and key.
  const servedTarget: ResolvedTarget = flags.server ? await resolveTarget(flags, process.env, {}, 'lineage sync') : target;
  // An OpenClaw workspace's changed files are keyed as their change events come (keys-ahead.ts).
  const keysAhead = runtime === 'openclaw' ? new KeysAhead(workspace, alfHome, (n) => progress(`keyed ${n} changed file${n === 1 ? '' : 's'} ahead of the next sync`)) : null;

  // One sync at a time, in the order asked; `dirty`: a file changed since the last sync started.
  let queue: Promise<unknown> = Promise.resolve();
  let dirty = false;
  let changedDuring = false;
  // A file other than a database's -wal, -shm or -journal changed while a sync ran.
  let changedOtherDuring = false;
  let running = false;
  // The next sync runs only for a database's companions that changed while a sync failed (`companionsAfterFailure` of markDirty).
  let rerun = false;
  const runSync = (stderr: (text: string) => void, syncTarget: ResolvedTarget = target): Promise<CommandOutput> => {
    let isRerun = false;
    const ran = queue.then(async (): Promise<CommandOutput> => {
      dirty = false;
      changedDuring = false;
      changedOtherDuring = false;
      isRerun = rerun;
      rerun = false;
      running = true;
      try {
        const sync = () => syncWorkspace({
          runtime, workspace, runtimeAgent, target: syncTarget, alfHome, clock: systemClock,
          log: (line) => stderr(`${line}\n`), keysAhead: keysAhead ?? undefined,
        });
        const output = await (keysAhead ? keysAhead.during(sync) : sync());
        return { stdout: `${JSON.stringify(output)}\n`, code: 0, idle: output.no_changes };
      } catch (error) {
        const failed = failureOutput(error);
        stderr(failed.stderr);
        const retryAfterSeconds = error instanceof SyncError ? error.retryAfterSeconds : undefined;
        const failure = error instanceof SyncError ? error.code : 'internal_error';
        return { stdout: failed.stdout, code: 1, failure, ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }) };
      } finally {
        running = false;
      }
    }).then((output) => {
      // Files that changed while an idle sync ran are most likely its own reads (a database's
      // journal come and gone): not a reason to sync again. After one that uploaded, or failed, they are
      // — but a database's -wal, -shm or -journal alone only once after a failure: each read of a
      // ZeroClaw or Hermes database touches them, and a sync that failed again (a refused key) would
      // otherwise run again and again, every --quiet ms, for its own reads. The next change, the retry
      // or --interval syncs. Any other file changed while a sync failed always makes another.
      const onlyCompanions = !changedOtherDuring;
      if (changedDuring && !output.idle && !(output.code !== 0 && isRerun && onlyCompanions)) markDirty(output.code !== 0 && onlyCompanions);
      return output;
    });
    queue = ran;
    return ran;
  };
  // A sync of its own that failed for a reason that passes (a busy server, one out of reach, a busy
  // data directory) is tried again by itself — after the server's Retry-After, or longer the more
  // times in a row it failed (up to RETRY_MAX_SECONDS) — so that changes made before it are not left
  // until the next change or --interval (with --interval 0: never). Any sync that runs meanwhile
  // (a change, the interval, a sync served) takes its place.
  let retryTimer: NodeJS.Timeout | undefined;
  let failedInARow = 0;
  const ownSync = async () => {
    clearTimeout(retryTimer);
    const output = await runSync((text) => process.stderr.write(text));
    process.stdout.write(output.stdout);
    startDetached();
    afterSync(output);
    if (output.code !== 0 && output.retryAfterSeconds === undefined) progress(whatNext(output.failure));
  };
  // A failure that does not pass by itself: its hint (the server's, "then run `lineage watch` again")
  // is about a command run once; this watch goes on, and the user is told what it does next.
  const whatNext = (failure: string | undefined) => {
    if (failure === 'auth_failed') {
      return `every sync of this watch is refused with this key: stop it (Ctrl-C, or kill ${process.pid}) and start it again with --key NEWKEY — while this one runs, a watch of this workspace with another key is refused (\`watch_running\`)`;
    }
    const when = [flags.onDemand ? null : 'at the next change', intervalMs > 0 && !flags.onDemand ? `within ${intervalMs / 1000} s (--interval)` : null].filter((w) => w !== null).join(', or ');
    return `this watch goes on (no need to start it again): it syncs ${when === '' ? 'when a lineage sync asks it' : when}`;
  };
  const afterSync = (output: CommandOutput) => {
    if (output.retryAfterSeconds === undefined) {
      if (output.code === 0) failedInARow = 0;
      return;
    }
    failedInARow++;
    const seconds = Math.max(output.retryAfterSeconds, Math.min(RETRY_MAX_SECONDS, RETRY_FIRST_SECONDS * 2 ** (failedInARow - 1)));
    progress(`trying the sync again in ${seconds} s (${failedInARow === 1 ? 'it failed' : `failed ${failedInARow} times in a row`} for a reason that passes)`);
    clearTimeout(retryTimer);
    retryTimer = setTimeout(() => void ownSync(), seconds * 1000);
  };

  let quietTimer: NodeJS.Timeout | undefined;
  const markDirty = (companionsAfterFailure = false, rel: string | null = null) => {
    if (running) {
      changedDuring = true;
      if (!isDatabaseCompanion(rel)) changedOtherDuring = true;
      return;
    }
    dirty = true;
    rerun = companionsAfterFailure;
    clearTimeout(quietTimer);
    quietTimer = setTimeout(() => {
      if (dirty) void ownSync();
    }, quietMs);
  };

  const listening = await listenResident({
    runDir, key: syncKey(flags, process.cwd(), process.env), identity: syncIdentity(flags, process.cwd()), target: target.label, stamp: cliStamp(), run: (stderr) => runSync(stderr, servedTarget),
    stale: () => progress('declined a lineage sync of this workspace run by other sources (the package changed since this watch started): restart the watch to serve it'),
    served: (output) => {
      clearTimeout(retryTimer);
      afterSync(output);
      startDetached();
      process.stdout.write(output.stdout);
      progress(`ran a lineage sync for another process (exit ${output.code})`);
    },
  });
  const server = 'socket' in listening ? listening : null;
  const watcher = flags.onDemand && !keysAhead ? null : startWatching(workspace, (rel) => {
    if (rel !== null) keysAhead?.changed(rel);
    if (!flags.onDemand) markDirty(false, rel);
  }, {
    gone: () => progress(`${workspace} is gone (removed or moved away): nothing of it is synced until a directory is there again, which this watch then watches${flags.onDemand ? '' : ' and syncs'}`),
    back: () => progress(`${workspace} is there again: watched again`),
  });
  const ticker = flags.onDemand || intervalMs === 0 ? null : setInterval(() => void ownSync(), intervalMs);
  progress(`watching ${workspace}${flags.onDemand ? ' (on demand only)' : ''}; ${server ? `serving lineage sync on ${server.socket}` : `not serving lineage sync: ${'unserved' in listening ? listening.unserved : ''}`}`);
  if (!flags.onDemand) void ownSync();
  await stopped;
  // Stopping: nothing new starts; a sync running finishes first (a kill would be recovered from too).
  watcher?.close();
  keysAhead?.close();
  if (ticker) clearInterval(ticker);
  clearTimeout(quietTimer);
  clearTimeout(retryTimer);
  await server?.close();
  await queue;
  startDetached();
  await target.close();
  progress('watch stopped');
}

/** A SQLite database's companion, which a read of it may touch (null: a change the system did not name). */
const isDatabaseCompanion = (rel: string | null) => rel !== null && /-(wal|shm|journal)$/.test(rel);

/** The files a sync itself writes in the workspace (its id and marker) and their temporary siblings. */
const isSyncOwnFile = (rel: string) => NEVER_RAW_FILES.some((name) => rel === name || rel.startsWith(`${name}.tmp-`));

/**
 * Watches the workspace's files (lib/cli/watch-tree.ts); the sync's own files are not changes. A
 * change reported under another name than its file's (a file replaced by a rename, seen as its
 * temporary name) is caught by the `--interval` sync.
 */
function startWatching(workspace: string, changed: (rel: string | null) => void, root: { gone: () => void; back: () => void }): TreeWatch | null {
  try {
    return watchTree(workspace, (rel) => {
      if (rel !== null && isSyncOwnFile(rel)) return;
      changed(rel);
    }, (error, rel) => {
      // One directory (made after the start, most often) could not be watched: the others still are.
      progress(`watching ${path.join(workspace, rel)} failed (${error.message}); its changes are synced every --interval, the rest of ${workspace} is still watched`);
    }, root);
  } catch (error) {
    // Out of inotify watches (a large Hermes home), say: the interval still syncs.
    progress(`watching ${workspace} failed (${(error as Error).message}); syncing every --interval only`);
    return null;
  }
}
