/**
 * What a sync loads of its client state, and when: the TOML, the stat cache (checked against the
 * base file it names) and the file keys at once; the base, its sha256 and its record memo on first
 * use — at once too when there is no stat cache that promises a cheap export. And the two things
 * the stat cache alone decides: an idle sync that reads no base, and finishing a killed write.
 */
import path from 'node:path';
import { rawArchivePath } from '@/lib/adapters/shared';
import { NO_FILE_KEYS, StaleStatCache, type FileKeys, type Runtime, type UnchangedFiles } from '@/lib/adapters/types';
import type { SnapshotWithLines } from '@/lib/core/archive';
import { sha256Hex } from '@/lib/core/uuid';
import { fileKeysPath, readFileKeys } from './file-keys';
import { memoPath, readRecordMemo, type RecordMemo } from './record-memo';
import { baseIdentity, readStatCache, statCachePath, type ExportSummary, type StatCache } from './stat-cache';
import { readBaseSnapshot, readClientState, statePaths, writeStateToml, type ClientState } from './state';
import { readSyncedFrom, writeSyncedFrom } from './synced-marker';
import type { SyncOptions, SyncOutput } from './sync';

/**
 * A sync killed after writing the base (and the stat cache naming it) but before the TOML that
 * points at it: the stat cache says which sequence that base is at, and it was written only once
 * the target had accepted that upload. The TOML is written now (and `state` moved on).
 */
export async function finishInterruptedWrite(alfHome: string, state: ClientState, loading: BaseLoad): Promise<boolean> {
  const cache = await loading.stat;
  if (state.last_synced_sequence === undefined || !cache || cache.sequence <= state.last_synced_sequence) return false;
  state.last_synced_sequence = cache.sequence;
  await writeStateToml(alfHome, state);
  return true;
}

export interface LoadedBase {
  state: Awaited<ReturnType<typeof readClientState>>;
  /**
   * The last-synced base, its records left as JSONL lines: those an unchanged record serializes
   * to exactly are never parsed (reconcileWithBase), which is most of them in a large store.
   */
  base: SnapshotWithLines | null;
}

export interface BaseLoad {
  state: Promise<ClientState | null>;
  /** The stat cache, when it names the base file there now (null: none, or not that base's). */
  stat: Promise<StatCache | null>;
  /** The file keys of the last export (empty when there are none: never a failure). */
  fileKeys: Promise<FileKeys>;
  /** The base, read on first call. */
  base(): Promise<LoadedBase>;
  /** The sha256 of the base file (null: none): what the memo must name. */
  sha(): Promise<string | null>;
  /** The record memo of that base; null when there is none that describes it (never a failure). */
  memo(): Promise<RecordMemo | null>;
}

export function startLoadingBase(alfHome: string, agentId: string): BaseLoad {
  const paths = statePaths(alfHome, agentId);
  const state = readClientState(alfHome, agentId);
  state.catch(() => {}); // awaited by the sync; a failure must not go unhandled meanwhile
  const stat = Promise.all([readStatCache(statCachePath(paths.dir, agentId)), baseIdentity(paths.snapshot)])
    .then(([cache, identity]) => (cache && identity && cache.base === identity ? cache : null));
  let file: Promise<{ state: ClientState | null; bytes: Uint8Array | null }> | undefined;
  const loadFile = () => (file ??= state.then(async (st) => ({ state: st, bytes: st?.last_synced_sequence === undefined ? null : await readBaseSnapshot(alfHome, agentId) })));
  let base: Promise<LoadedBase> | undefined;
  let sha: Promise<string | null> | undefined;
  let memo: Promise<RecordMemo | null> | undefined;
  const load: BaseLoad = {
    state,
    stat,
    fileKeys: readFileKeys(fileKeysPath(paths.dir, agentId)).catch(() => NO_FILE_KEYS),
    base() {
      if (!base) {
        base = loadFile().then(async ({ state: st, bytes }) => ({ state: st, base: bytes ? await (await import('./sync-work')).readSnapshotLines(bytes) : null }));
        base.catch(() => {});
      }
      return base;
    },
    sha: () => (sha ??= loadFile().then(({ bytes }) => (bytes ? sha256Hex(bytes) : null)).catch(() => null)),
    memo: () => (memo ??= load.sha().then((s) => (s ? readRecordMemo(memoPath(paths.dir, agentId), s) : null)).catch(() => null)),
  };
  // A stat cache that names the base promises an export that reads little, and maybe an idle sync
  // that needs no base: the base is read when asked for. Without one, it is read (and its large
  // members inflated on the thread pool) while the export reads every file.
  void stat.then((cache) => {
    if (!cache) void load.base().then(() => load.memo(), () => null);
  });
  return load;
}

/**
 * The sync of an export that found every file unchanged (`allUnchanged`): idle at the cache's
 * sequence, when that is the state's (a newer one finishes a killed sync's write) and the cache was
 * made from this workspace. Null when it cannot tell: the caller exports again.
 */
export async function idleFromStatCache(opts: SyncOptions, load: BaseLoad, agentId: string, now: Date, log: (line: string) => void): Promise<SyncOutput | null> {
  const [cache, state] = await Promise.all([load.stat, load.state.catch(() => null)]);
  if (!cache || !state || state.last_synced_sequence === undefined || cache.summary.workspace !== path.resolve(opts.workspace)) return null;
  if (cache.sequence < state.last_synced_sequence) return null;
  if (await finishInterruptedWrite(opts.alfHome, state, load)) log(`finished the state write a killed sync left: the base is at sequence ${cache.sequence}`);
  log(`no changes since sequence ${cache.sequence} (no file changed)`);
  if ((await readSyncedFrom(opts.workspace, agentId))?.sequence !== cache.sequence) {
    await writeSyncedFrom(opts.workspace, { agent_id: agentId, sequence: cache.sequence, synced_at: now.toISOString() });
  }
  return {
    ok: true, sequence: cache.sequence, delta: false, snapshot_path: statePaths(opts.alfHome, agentId).snapshot, no_changes: true, recovered: false,
    agent: { runtime_agent: opts.runtimeAgent ?? cache.summary.agent_name, alf_agent_id: agentId, source: opts.runtimeAgent ? 'flag' : 'workspace' },
  };
}

export function summaryOf(opts: SyncOptions, exported: { agentName: string }): ExportSummary {
  return { agent_name: exported.agentName, workspace: path.resolve(opts.workspace) };
}

/**
 * The export's view of the stat cache: lookups straight away, and the bytes of the files it found
 * unchanged from the base — once the base is loaded and found to be the one the cache names.
 */
export function unchangedFiles(load: BaseLoad, cache: StatCache | null, context: string, runtime: Runtime): UnchangedFiles | null {
  if (!cache || cache.context !== context) return null;
  return {
    count: cache.size,
    lookup: (rel, stat) => cache.lookup(rel, stat),
    async bytes(rels) {
      const { base } = await load.base();
      if (!base) throw new StaleStatCache();
      const out = new Map<string, Uint8Array>();
      for (const rel of rels) {
        const bytes = base.raw.get(rawArchivePath(runtime, rel));
        if (!bytes) throw new StaleStatCache(`the base carries no ${rel}`);
        out.set(rel, bytes);
      }
      return out;
    },
  };
}

