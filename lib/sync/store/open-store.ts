/**
 * Opening an agent's client-state store for a sync, and deciding whether it is the base: the state
 * TOML names the sequence (CONTRACT §2.4), and the base is `{agent}-snapshot.alf` when that file is
 * there and no index names it (a restore, a rebase or an adoption wrote it since), else the store.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import type { FileStat } from '@/lib/adapters/types';
import type { PriorFiles } from '@/lib/adapters/openclaw/export-changes';
import { RECORD_STATE_VERSION } from '@/lib/adapters/openclaw/records';
import { fileKeysPath } from '../file-keys';
import { memoPath } from '../record-memo';
import { baseIdentity, statCachePath } from '../stat-cache';
import { readClientState, statePaths, writeStateToml, type ClientState } from '../state';
import { StoreDamaged } from './errors';
import { lookupStat, readIndex, type IndexFile, type ReadIndex, type StoreIndex } from './index-file';
import { LogReader } from './log';
import { storePaths } from './paths';
import { arrayKeys } from '@/lib/adapters/openclaw/section-keys';
import { parseTable, TableView, type TableRow } from './table';

export interface OpenStore {
  index: StoreIndex;
  /** The sha256 of the index file's bytes: this very state (keys-ahead.ts). Hashed when first asked for. */
  digest: () => string;
  /** The index file's mtime: stat data not older than it are racy. */
  writtenNs: bigint;
  byRel: ReadonlyMap<string, IndexFile>;
  log: LogReader;
  /** A record-bearing file's table (read once). */
  table(rel: string): TableRow[];
  /** The same table read row by row (table.ts `TableView`), or null when it is not ASCII (then `table` reads it). */
  view(rel: string): TableView | null;
  /** What the export may take from this state: its stat data only for the same workspace, context and key version. */
  prior(context: string, workspace: string): PriorFiles;
}

export function openStore(stateDir: string, agentId: string, read: ReadIndex): OpenStore {
  const { index, writtenNs, digest } = read;
  const byRel = new Map(index.files.map((f) => [f.rel, f]));
  const log = new LogReader(storePaths(stateDir, agentId).log(index.generation), index.logLength);
  const blocks = new Map<string, Buffer>();
  const block = (rel: string): Buffer => {
    let bytes = blocks.get(rel);
    if (!bytes) {
      const ref = byRel.get(rel)?.table;
      if (!ref) throw new StoreDamaged(`client state: ${rel} has no record table`);
      blocks.set(rel, (bytes = log.read(ref)));
    }
    return bytes;
  };
  const tables = new Map<string, TableRow[]>();
  const table = (rel: string): TableRow[] => {
    let rows = tables.get(rel);
    if (!rows) tables.set(rel, (rows = parseTable(block(rel), `client state table of ${rel}`)));
    return rows;
  };
  const views = new Map<string, TableView | null>();
  const view = (rel: string): TableView | null => {
    let found = views.get(rel);
    if (found === undefined) views.set(rel, (found = TableView.of(block(rel), `client state table of ${rel}`)));
    return found;
  };
  return {
    index, digest, writtenNs, byRel, log, table, view,
    prior(context, workspace) {
      const trusted = index.context === context && index.meta.workspace === workspace && index.meta.key_version === RECORD_STATE_VERSION;
      return {
        count: index.files.length,
        unchanged: (rel: string, stat: FileStat) => {
          const entry = trusted ? lookupStat(byRel, writtenNs, rel, stat) : null;
          return entry ? { digest: entry.digest } : undefined;
        },
        keys: (rel: string, digest: string) => {
          const entry = byRel.get(rel);
          return entry?.table && entry.digest === digest ? table(rel).map((row) => row.key) : undefined;
        },
        digest: (rel: string) => byRel.get(rel)?.digest,
        bytes: (rel: string) => {
          const entry = byRel.get(rel);
          if (!entry) throw new StoreDamaged(`client state: no bytes of ${rel}`);
          return log.read(entry.raw);
        },
        previous: (rel: string) => {
          const entry = byRel.get(rel);
          // The same context is the same layout, so the same tier (the digest, and so the keys, depend on it).
          if (!trusted || !entry?.table) return undefined;
          const rows = view(rel);
          return { bytes: log.read(entry.raw), keys: rows ?? arrayKeys(table(rel).map((row) => row.key)) };
        },
        sameBytes: (rel: string, bytes: Uint8Array) => {
          const entry = byRel.get(rel);
          return entry !== undefined && entry.raw.len === bytes.byteLength && log.read(entry.raw).equals(bytes);
        },
      };
    },
  };
}

export type StoreOpening =
  | { kind: 'store'; store: OpenStore; state: ClientState & { last_synced_sequence: number }; finished: boolean }
  | { kind: 'base' };

/**
 * The store, when it is this agent's base: the index names the TOML's sequence (or a newer one: a
 * sync killed between the two, whose TOML is written now), and no `.alf` other than the one it
 * names is there. Else `base`: the sync reads `{agent}-snapshot.alf` (or finds none), as without a store.
 */
export async function openForSync(alfHome: string, agentId: string): Promise<StoreOpening> {
  const { dir, snapshot } = statePaths(alfHome, agentId);
  const [state, read, alf] = await Promise.all([
    readClientState(alfHome, agentId).catch(() => null),
    readIndex(storePaths(dir, agentId).index).catch((error: unknown) => {
      if (error instanceof StoreDamaged) return null;
      throw error;
    }),
    baseIdentity(snapshot),
  ]);
  const holds = read && state ? storeHolds(state, read.index, alf) : 'none';
  if (holds === 'none' || !read || !state || state.last_synced_sequence === undefined) return { kind: 'base' };
  const { index } = read;
  const synced = state.last_synced_sequence;
  const interrupted = holds === 'interrupted';
  const store = openStore(dir, agentId, read);
  if (!interrupted) return { kind: 'store', store, state: { ...state, last_synced_sequence: synced }, finished: false };
  const finished = { agent_id: agentId, last_synced_sequence: index.sequence, last_synced_at: index.meta.created_at };
  await removeStale(dir, agentId, { generation: index.generation, keepAlf: false });
  await writeStateToml(alfHome, finished);
  return { kind: 'store', store, state: finished, finished: true };
}

/**
 * Whether the store is the base of the state the TOML names (`store`), is a newer state than it —
 * a sync of ours killed between its index and its TOML (`interrupted`) — or is not the base at all
 * (`none`: the `.alf`, or nothing, is). Read only: what `openForSync` decides, and `state show` says.
 */
export function storeHolds(state: ClientState, index: StoreIndex, alf: string | null): 'store' | 'interrupted' | 'none' {
  const synced = state.last_synced_sequence;
  if (synced === undefined || synced > index.sequence) return 'none';
  const interrupted = synced < index.sequence;
  // A `.alf` the index does not name is newer than it — unless the index is newer than the TOML:
  // then it is the base that sync was about to remove.
  if (alf !== null && alf !== index.alf && !interrupted) return 'none';
  // A TOML behind the index is a sync of ours killed between the two only if it is older than the
  // index: that sync's TOML was the one before it. A TOML behind the index but written after it,
  // beside a `.alf` the index does not name, is another client's state written since — the
  // reference CLI's `alf restore` of a server restored from a backup, or its first sync after `alf
  // purge` (base first, then TOML, CONTRACT §2.4) — and that `.alf` is the base: finishing "our"
  // sync would delete it and set the sequence forward to one the target no longer has.
  if (interrupted && alf !== null && alf !== index.alf && writtenAfter(state.last_synced_at, index.meta.created_at)) return 'none';
  return interrupted ? 'interrupted' : 'store';
}

/**
 * Removes what the store replaces or left behind: the `.alf` base (unless kept: it holds the
 * index's very state), the record memo, file keys and stat cache of the `.alf` layout, and logs of
 * other generations. Done once the index names the state.
 */
export async function removeStale(stateDir: string, agentId: string, keep: { generation: number; keepAlf: boolean }): Promise<void> {
  const paths = storePaths(stateDir, agentId);
  const stale = [memoPath(stateDir, agentId), fileKeysPath(stateDir, agentId), statCachePath(stateDir, agentId)];
  if (!keep.keepAlf) stale.push(path.join(stateDir, `${agentId}-snapshot.alf`));
  const names = await fs.readdir(stateDir).catch(() => [] as string[]);
  for (const name of names) if (paths.isLog(name) && path.join(stateDir, name) !== paths.log(keep.generation)) stale.push(path.join(stateDir, name));
  // Only what the listing shows (all of them live in stateDir): usually nothing is left to remove.
  const present = new Set(names);
  await Promise.all(stale.filter((file) => present.has(path.basename(file))).map((file) => fs.rm(file, { force: true })));
}

/**
 * Whether the TOML's `last_synced_at` is later than the index's `created_at` (both this machine's
 * clock), to the millisecond; false when either is missing or not a time (then it cannot be told).
 */
function writtenAfter(syncedAt: string | undefined, indexCreatedAt: string): boolean {
  if (syncedAt === undefined) return false;
  const toml = Date.parse(syncedAt);
  const index = Date.parse(indexCreatedAt);
  return Number.isFinite(toml) && Number.isFinite(index) && toml > index;
}
