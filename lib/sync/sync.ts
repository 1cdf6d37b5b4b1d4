import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { openclawAgentId } from '@/lib/adapters/openclaw/export-changes';
import { syncLock, withAgentLock } from './agent-lock';
import { isOwnPartitionFile, partitionFileOf } from '@/lib/core/archive/partitions';
import type { FullState } from './store/full-state';
import type { KeysAhead } from './store/keys-ahead';
import type { PreparedState } from './store/write-state';
import { readIndex } from './store/index-file';
import { openForSync, removeStale } from './store/open-store';
import { storePaths } from './store/paths';
import { getAdapter } from '@/lib/adapters';
import { requireWorkspace } from '@/lib/adapters/shared/errors';
import { stagingAmong, stagingWarnings } from '@/lib/adapters/shared/restore-staging';
import { RAW_DIRS } from '@/lib/adapters/raw-dirs';
import { NO_FILE_KEYS, StaleStatCache, type ExportResult, type RecordSlot, type Runtime, type SlotExport } from '@/lib/adapters/types';
import { baseIdentity, statCachePath, writeStatCache } from './stat-cache';
import { finishInterruptedWrite, idleFromStatCache, startLoadingBase, summaryOf, unchangedFiles, type BaseLoad } from './base-load';
import { LAYER_FILES, type AlfDelta, type AlfSnapshot, type DeltaEntry } from '@/lib/core/archive/types';
import type { Clock } from '@/lib/core/clock';
import { computeDelta, countOps, diffRaw } from '@/lib/core/delta';
import { canonicalJson, isJsonObject, jsonEqual, type JsonObject } from '@/lib/core/json';
import type { MemoryRecord } from '@/lib/core/record';
import type { BaseReconcileResult } from '@/lib/core/reconcile-base';
import type { RecordLines } from '@/lib/core/archive/record-lines';
import type { WrittenSnapshot } from '@/lib/core/archive/write-snapshot';
import type { RecordChecks } from '@/lib/ledger/record-checks';
import { ledgerRefusal, SyncError } from './errors';
import { isRefusedWhole } from './first-snapshot-undo';
import { checkDeltaLines, checkSnapshotLines } from './record-size';
import { fileKeysPath, writeFileKeys } from './file-keys';
import { ALF_VERSION, checkedRecordLines, snapshotFromExport } from './snapshot';
import { SPOT_CHECK, memoPath, removeRecordMemo, writeRecordMemo, type MemoDraft, type RecordMemo } from './record-memo';
import { readClientState, runtimeOf, statePaths, writeBaseFile, writeStateToml, type ClientState } from './state';
import { crashPoint } from './crash-points';
import { finishFromStoreStat, fingerprintHolds, idleFromStoreStat, readStoreStat, storeStatPath, takeFingerprint, writeStoreStat, type StoreFingerprint, type StoreKey, type StoreStat } from './store-stat';
import { readSent, readSyncedFrom, writeSent, writeSyncedFrom } from './synced-marker';
import { confirmTarget, writeTargetMark } from './target-mark';
import type { SyncTarget } from './target';
import { sha256Hex } from '@/lib/core/uuid';

import { SyncConflictError } from './errors';
import { registrableName } from '@/lib/ledger/agent-name';

/** The heavy half of a sync (sync-work.ts), loaded once there is something to reconcile. */
let workModule: Promise<typeof import('./sync-work')> | undefined;
const work = () => (workModule ??= import('./sync-work'));
let storeSyncModule: Promise<typeof import('./store/sync-store')> | undefined;
const storeSync = () => (storeSyncModule ??= import('./store/sync-store'));

export interface SyncOptions {
  runtime: Runtime;
  workspace: string;
  runtimeAgent?: string;
  target: SyncTarget;
  alfHome: string;
  clock: Clock;
  /** Upload a first snapshot even when the target already holds history for this agent. */
  forceFirstSync?: boolean;
  /**
   * Sync the workspace although the agent was last synced as another runtime (`--change-runtime`):
   * a deliberate move, whose delta re-keys the records. Without it such a sync is refused (checkRuntime).
   */
  changeRuntime?: boolean;
  /** Progress lines (stderr in the CLI). */
  log?: (line: string) => void;
  /** Set on the sync that follows an adoption (recover.ts): it does not adopt again. */
  adopted?: boolean;
  /** Internal: the target has nothing of the agent whatever the state says (target-mark.ts): a first sync there. */
  toNewTarget?: boolean;
  /** Internal: a SQLite-store sync's fingerprint, taken before its export, recorded with its state. */
  store?: { key: StoreKey; fingerprint: StoreFingerprint; recorded: StoreStat | null };
  /**
   * How an OpenClaw agent's client state is kept (ZeroClaw and Hermes keep the `.alf`): `store`
   * (default; `LINEAGE_SYNC_STATE`), a store of per-file record tables and a log written in
   * proportion to what changed (lib/sync/store), with `{agent}-snapshot.alf` written on demand by
   * `lineage state export`; or `alf`, that base rewritten whole by every sync that uploads.
   */
  layout?: StateLayout;
  /** Internal: where the export's warnings go (syncWorkspace logs each once and gives them in its output). */
  warn?: (message: string) => void;
  /** Files a process that stays keyed ahead of this sync (a watch: lib/sync/store/keys-ahead.ts), taken when they are exactly what the sync would key. */
  keysAhead?: KeysAhead;
}

export type StateLayout = 'alf' | 'store';

/** Whether this sync keeps its client state in the store (an adapter that exports slots: OpenClaw). */
export function usesStore(opts: Pick<SyncOptions, 'runtime' | 'layout'>): boolean {
  const layout = opts.layout ?? (process.env.LINEAGE_SYNC_STATE === 'alf' ? 'alf' : 'store');
  return layout === 'store' && getAdapter(opts.runtime).exportSlots !== undefined;
}

/** Creates, updates and deletes, of memory records or of a layer's entries. */
export interface OpCounts { creates: number; updates: number; deletes: number }

/**
 * What a delta changed, as the reference CLI's sync JSON says it (CONTRACT §2.3): the memory
 * records' operations, then per layer — `credentials` and `principals` (their entries diffed by
 * id), `identity: true` — each only when the delta carries that layer and it changed something.
 */
export type SyncChanges = OpCounts & { credentials?: OpCounts; principals?: OpCounts; identity?: true };

/** The reference CLI's sync JSON (CONTRACT §2.3). */
export interface SyncOutput {
  ok: true;
  sequence: number;
  delta: boolean;
  changes?: SyncChanges;
  snapshot_path: string;
  no_changes: boolean;
  recovered: boolean;
  agent: { runtime_agent: string; alf_agent_id: string; source: 'flag' | 'workspace' };
  raw?: { changed: number; deleted: number };
  /**
   * What the export could not take as it is (a file that is not UTF-8 kept as a raw file only, a
   * time that is not one), each said once; omitted when none, as in `lineage export`'s JSON.
   */
  warnings?: string[];
}

/**
 * One sync: export the store, reconcile against the last-synced base, and upload either the
 * first snapshot or a delta. Idle syncs upload nothing and consume no sequence.
 */
export async function syncWorkspace(opts: SyncOptions): Promise<SyncOutput> {
  // A workspace that is not there is said before anything is written (not even the agent's lock file).
  requireWorkspace(opts.workspace);
  // One sync of an agent at a time (agent-lock.ts); OpenClaw's agent id is read (or minted) first.
  const agentId = opts.runtime === 'openclaw' ? await openclawAgentId(opts.workspace) : null;
  // An export that runs again (a stale stat cache, an adoption's sync) says the same things again: once each.
  const warnings = new Set<string>();
  const warn = (message: string) => {
    if (warnings.has(message)) return;
    warnings.add(message);
    opts.log?.(`warning: ${message}`);
  };
  return withAgentLock({ alfHome: opts.alfHome, ...syncLock(opts, agentId), log: opts.log }, async () => {
    const output = await syncHoldingLock({ ...opts, warn }, agentId);
    if (output.no_changes) await checkIdleAgainstTarget(opts, output, warn);
    // The state now follows this target (its upload accepted). Not written (a full disk): the next
    // sync asks the target, finds its own upload there, and marks it then.
    if (!output.no_changes) await writeTargetMark(opts.alfHome, output.agent.alf_agent_id, opts.target).catch(() => {});
    return warnings.size === 0 ? output : { ...output, warnings: [...warnings] };
  });
}

/**
 * An idle sync to a server asks it for the agent's latest sequence (one request; nothing is sent or
 * written): a server behind this machine's base — its storage put back from a backup taken before
 * this machine's last syncs — is refused as the conflict a delta would meet (`targetBehindError`,
 * with the `--rebase` way out), instead of `no_changes` at a sequence the server no longer holds,
 * which an idle workspace would say until its next change. A server that cannot be asked (out of
 * reach, a refused key) leaves the idle answer as it was, with a warning; one ahead (another
 * machine's syncs) or without the agent is as before.
 */
async function checkIdleAgainstTarget(opts: SyncOptions, output: SyncOutput, warn: (message: string) => void): Promise<void> {
  if (!opts.target.headSequence) return;
  const agentId = output.agent.alf_agent_id;
  let latest: number | null;
  try {
    latest = await opts.target.headSequence(agentId);
  } catch (error) {
    warn(`nothing to sync, but ${opts.target.label} could not be asked whether it still holds sequence ${output.sequence}: ${error instanceof Error ? error.message : String(error)}`);
    return;
  }
  if (latest === null || latest >= output.sequence) return;
  const { targetBehindError, rebaseCommand } = await work();
  throw targetBehindError({ agentId, local: output.sequence, latest, command: rebaseCommand(opts), target: opts.target });
}

/** syncWorkspace's work, its lock held (an adoption's sync again runs here: the lock is still held). */
async function syncHoldingLock(opts: SyncOptions, openclawId: string | null): Promise<SyncOutput> {
  if (usesStore(opts) && !opts.toNewTarget) {
    // The agent's store, when it is the base: the sync reconciles only what changed.
    const opening = await openForSync(opts.alfHome, openclawId ?? (await openclawAgentId(opts.workspace)));
    if (opening.kind === 'store') {
      let verdict: 'same' | 'new';
      try {
        checkRuntime(opts, opening.state.agent_id, opening.state.runtime);
        verdict = await confirmTarget(opts, opening.state.agent_id, opening.state.last_synced_sequence);
      } catch (error) {
        opening.store.log.close();
        throw error;
      }
      if (verdict === 'same') return (await storeSync()).syncWithStore(opts, opening);
      opening.store.log.close();
      return syncExport({ ...opts, toNewTarget: true });
    }
  }
  // A store the export reads whole (a SQLite database): unchanged files, as their stat data tell
  // (store-stat.ts), are an idle sync that opens none of them.
  if (getAdapter(opts.runtime).exportSlots || opts.adopted || opts.store) return syncExport(opts);
  const key = { runtime: opts.runtime, workspace: opts.workspace, runtimeAgent: opts.runtimeAgent };
  const fingerprint = takeFingerprint(opts.workspace);
  const recorded = fingerprint ? await readStoreStat(storeStatPath(opts.alfHome, key)) : null;
  const log = opts.log ?? (() => {});
  // A sync killed after its base and store stat, before the TOML: the TOML is written now.
  if (recorded && (await finishFromStoreStat(opts.alfHome, recorded))) log(`finished the state write a killed sync left: the base is at sequence ${recorded.sequence}`);
  const store = fingerprint ? { key, fingerprint, recorded } : undefined;
  if (fingerprint && recorded && fingerprintHolds(recorded, fingerprint) && !opts.toNewTarget) {
    // A restore's staging files, which the export would leave out, are said by an idle sync too.
    for (const warning of stagingWarnings(opts.workspace, stagingAmong(opts.workspace, [...fingerprint.files.keys()], RAW_DIRS[opts.runtime]))) opts.warn?.(warning);
    // An idle sync of the target its state follows; one the target has nothing of is a first sync there.
    const state = await readClientState(opts.alfHome, recorded.agentId).catch(() => null);
    if (state) checkRuntime(opts, recorded.agentId, state.runtime);
    const known = state?.last_synced_sequence;
    if (known !== undefined && (await confirmTarget(opts, recorded.agentId, known)) === 'new') return syncExport({ ...opts, toNewTarget: true, store });
    const idle = await idleFromStoreStat(opts, recorded, state, opts.clock(), log);
    if (idle) return idle;
  }
  return syncExport({ ...opts, store });
}

async function syncExport(opts: SyncOptions): Promise<SyncOutput> {
  const log = opts.log ?? (() => {});
  const now = opts.clock();
  // The base is read (file, and its large members inflated on the thread pool) while the export
  // runs, as soon as the adapter knows whose it is; so are the record memo and the file keys, which
  // the export asks for.
  const early = new Map<string, BaseLoad>();
  const adapter = getAdapter(opts.runtime);
  const exportOptions = {
    workspace: opts.workspace,
    runtimeAgent: opts.runtimeAgent,
    persistAgentId: true,
    clock: opts.clock,
    onAgentId: (agentId: string) => { early.set(agentId, startLoadingBase(opts.alfHome, agentId)); },
    unchanged: async (agentId: string, context: string) => {
      const load = early.get(agentId);
      return load ? unchangedFiles(load, await load.stat, context, opts.runtime) : null;
    },
  };
  // Adapters that can export records as slots leave those the record memo knows unbuilt.
  const exportSlots = (options: typeof exportOptions | Omit<typeof exportOptions, 'unchanged'>) => adapter.exportSlots!(
    options, async (agentId) => knownKeys(await (early.get(agentId)?.memo() ?? null)), async (agentId) => (await early.get(agentId)?.fileKeys) ?? NO_FILE_KEYS);
  const { unchanged: _none, ...plain } = exportOptions;
  let slotted = adapter.exportSlots
    ? await exportSlots(exportOptions).catch((error: unknown) => {
      // The stat cache did not describe the base after all (its base went missing): the export
      // runs again, reading every file.
      if (!(error instanceof StaleStatCache)) throw error;
      return exportSlots(plain);
    })
    : null;
  // The target has nothing of the agent (target-mark.ts): a first sync there, whatever the state says.
  let toNewTarget = opts.toNewTarget === true;
  // The sequence confirmTarget found the target at one with the state, if it was asked already: not asked again.
  let confirmedAt: number | undefined;
  if (slotted?.allUnchanged) {
    // Every file unchanged, none came or went: idle, without reading the base — when the cache's
    // base is the state's, and the state the target's. Else the export runs again, reading every file.
    // What it says (a restore's staging files left out) is said by an idle sync too.
    for (const warning of slotted.warnings) opts.warn?.(warning);
    const load = early.get(slotted.agentId)!;
    const loadedState = await load.state.catch(() => null);
    if (loadedState) checkRuntime(opts, slotted.agentId, loadedState.runtime);
    const known = toNewTarget ? undefined : loadedState?.last_synced_sequence;
    if (known !== undefined) {
      if ((await confirmTarget(opts, slotted.agentId, known)) === 'new') toNewTarget = true;
      else confirmedAt = known;
    }
    const idle = toNewTarget ? null : await idleFromStatCache(opts, load, slotted.agentId, now, log);
    if (idle) return idle;
    slotted = await exportSlots(plain);
  }
  const exported: Omit<ExportResult, 'records'> & { records?: MemoryRecord[] } = slotted ?? (await adapter.exportWorkspace(exportOptions));
  for (const warning of exported.warnings) opts.warn?.(warning);
  const slots = slotted?.slots ?? null;
  const agentId = exported.agentId;
  const loading = early.get(agentId) ?? startLoadingBase(opts.alfHome, agentId);
  const agentInfo = { runtime_agent: opts.runtimeAgent ?? exported.agentName, alf_agent_id: agentId, source: opts.runtimeAgent ? 'flag' : 'workspace' } as const;
  const { state, base } = await loading.base();
  // Before anything is written: the workspace is the runtime the agent was last synced as.
  if (state) checkRuntime(opts, agentId, state.runtime ?? baseRuntime(base?.manifest));
  const finished = state && base ? await finishInterruptedWrite(opts.alfHome, state, loading) : false;
  if (finished) log(`finished the state write a killed sync left: the base is at sequence ${state!.last_synced_sequence}`);
  if (!toNewTarget && state?.last_synced_sequence !== undefined && base && state.last_synced_sequence !== confirmedAt
    && (await confirmTarget(opts, agentId, state.last_synced_sequence)) === 'new') toNewTarget = true;

  if (toNewTarget || state?.last_synced_sequence === undefined || !base) {
    log(`first sync of ${agentId} to ${opts.target.label}`);
    const w = await work();
    const { adoptSentSnapshot, rebaseCommand, writeSnapshotRead } = w;
    const records = exported.records ?? slots!.map((slot) => slot.record ?? slot.build());
    const withLines = slotted !== null && usesStore(opts);
    const snapshot = snapshotFromExport(exported, now, records);
    // Each record is serialized once, into the line the archive takes (and, with the store, the
    // store too): so the snapshot as written is at hand, which the ledger's checks are made on
    // below. With the store, its large partitions deflate in the worker while the lines are made.
    // A slot the export built says its record's line itself (records.ts FileShared), at about half the cost.
    const json = slots ? (index: number) => slots[index]!.json?.() : undefined;
    // The ledger's record checks, made with the lines: each record is walked once, for the verdict
    // below and for a local target's ingest, which takes that verdict (record-checks.ts).
    const checked = new w.RecordChecks(records);
    const serialized = checkedRecordLines(records, { deflateAhead: withLines, json, checks: checked });
    const lines = withLines ? serialized.lines : null;
    const { bytes, written, longestLine } = await writeSnapshotRead(snapshot,
      { recordLines: serialized.lines, partitionsAhead: serialized.partitionsAhead, distinctIdsOf: serialized.distinctIdsOf });
    // Refused here, the target left as it was (the agent not registered): a memory over the
    // readers' line limit, named in the workspace (record-size.ts), and anything the ledger's
    // ingest would refuse of the snapshot as written (a NUL character, a field of the wrong type, a raw path).
    await checkSnapshotLines(longestLine, records, serialized.lines);
    refusedByLedger(w, written, checked);
    const registered = await opts.target.ensureAgent({ id: agentId, name: registrableName(exported.agentName, `${opts.runtime} agent`), runtime: opts.runtime });
    if (registered.alreadyExisted && registered.latestSequence !== null && !opts.forceFirstSync) {
      // This machine's own first snapshot, whose state was never written: adopted.
      if (!opts.adopted && (await adoptSentSnapshot({ target: opts.target, alfHome: opts.alfHome, agentId, latest: registered.latestSequence, sent: await readSent(opts.workspace, agentId), now }))) {
        log(`adopted sequence ${registered.latestSequence}: this machine's own upload`);
        return { ...(await syncHoldingLock({ ...opts, adopted: true }, null)), recovered: true };
      }
      // The reference's E3 guard: a first sync must not silently bury an agent's existing history.
      throw new SyncError(
        'registration_failed',
        `agent ${agentId} already has history at sequence ${registered.latestSequence} on ${opts.target.label}, but this machine has no sync state for it`,
        `run \`${rebaseCommand({ ...opts, target: opts.target })}\` to take that history as this machine's base without changing the workspace (the next \`lineage sync\` uploads the workspace's difference), or pass --force-first-sync to upload a new full snapshot`,
      );
    }
    opts.target.expectSnapshot?.(agentId, records.length, written !== null);
    await writeSent(opts.workspace, agentId, { base_sequence: null, sha256: sha256Hex(bytes) });
    crashPoint('sent-recorded');
    const uploading = opts.target.putSnapshot(agentId, bytes, written ?? undefined, checked);
    // The store is laid out and its log written while the target ingests the upload (a server in
    // its own process; a local target checks a large one as written, or on its ingest thread); its index names it
    // once the upload is accepted. Every record's line is its own serialization: each pairs with it next time.
    const preparing = slotted && lines ? prepareStore(opts, { agentId, now, exported: slotted, records, lines, placed: null, storeRaw: false, allEarly: true }) : null;
    let sequence: number;
    try {
      ({ sequence } = await uploading);
    } catch (error) {
      // Nothing names the log written for it: removed (else the next state written removes it).
      if (preparing) await discardPrepared(preparing);
      throw error;
    }
    crashPoint('uploaded');
    if (preparing) {
      const snapshotPath = await commitStore(opts, await preparing, { agentId, sequence, now });
      return { ok: true, sequence, delta: false, snapshot_path: snapshotPath, no_changes: false, recovered: false, agent: agentInfo };
    }
    // Every record's line is its own serialization: each pairs with it next time.
    const memo = slots ? { added: slots.map((slot, j) => [slot.key, records[j]!.id] as const) } : null;
    const snapshotPath = await persist(opts, agentId, sequence, now, bytes, memo, slotted, agentInfo.runtime_agent);
    return { ok: true, sequence, delta: false, snapshot_path: snapshotPath, no_changes: false, recovered: false, agent: agentInfo };
  }

  const baseSequence = state.last_synced_sequence;
  const memo = await loading.memo();
  const w = await work();
  const { writeSnapshot } = w;
  const { reconciled, memoEntry } = reconcileSlots(w, { agentId, base: base.records, memo, records: exported.records, slots });
  const current = snapshotFromExport(exported, now, reconciled.records);
  const delta = buildDelta({ base: { raw: base.raw, layers: base.layers }, current, entries: reconciled.entries, baseSequence, runtime: opts.runtime, agentId, now, baseTimestamp: state.last_synced_at });
  // With the store, the next base is written there (whole, this once: its base was a `.alf`).
  const storeState = slotted && usesStore(opts)
    ? () => ({ exported: slotted, records: reconciled.records, lines: reconciled.lines, placed: placedOf(base.records, reconciled, memoEntry), now, storeRaw: true, allEarly: false })
    : null;
  if (!delta) {
    log(`no changes since sequence ${baseSequence}`);
    // A state that named no runtime (an older lineage's) or another one (`--change-runtime`) names this one now.
    if (state.runtime !== opts.runtime) await writeStateToml(opts.alfHome, { ...state, runtime: opts.runtime }).catch(() => {});
    // Nothing is written, but file keys that were missing (a first sync with this version).
    if (slotted?.fileKeys && (await loading.fileKeys).size === 0) {
      await writeFileKeys(fileKeysPath(statePaths(opts.alfHome, agentId).dir, agentId), slotted.fileKeys).catch(() => {});
    }
    // Nor is the stat cache, but one that was missing or did not describe the base (after a restore,
    // a rebase or an adoption); racy entries of one that did are simply read again next time.
    const [identity, cache] = await Promise.all([baseIdentity(statePaths(opts.alfHome, agentId).snapshot), loading.stat]);
    if (slotted?.fileStats && identity && (cache === null || cache.context !== slotted.statContext)) {
      await writeStatCache(statCachePath(statePaths(opts.alfHome, agentId).dir, agentId), slotted.fileStats, identity, slotted.statContext ?? '-', baseSequence, summaryOf(opts, exported))
        .catch(() => {});
    }
    // The store stat of a SQLite store: what this export saw (the record, if any, did not prove this idle).
    if (opts.store) {
      await writeStoreStat(opts.alfHome, opts.store.key, { agentId, agentName: agentInfo.runtime_agent, sequence: baseSequence, fingerprint: opts.store.fingerprint }, statePaths(opts.alfHome, agentId).snapshot).catch(() => {});
    }
    // The workspace is at the base's sequence: its marker says so unless it already did (deleted,
    // or written by a sync of another copy), so a later restore finds it up to date.
    if ((await readSyncedFrom(opts.workspace, agentId))?.sequence !== baseSequence) {
      await writeSyncedFrom(opts.workspace, { agent_id: agentId, sequence: baseSequence, synced_at: now.toISOString() });
    }
    return { ok: true, sequence: baseSequence, delta: false, snapshot_path: statePaths(opts.alfHome, agentId).snapshot, no_changes: true, recovered: false, agent: agentInfo };
  }
  // The next base is written while the delta is and while the target ingests: its Deflate runs on
  // the thread pool meanwhile. It is persisted only once the delta is accepted.
  const nextBase = storeState ? null : writeSnapshot(current, { recordLines: reconciled.lines, storeRaw: true });
  nextBase?.catch(() => {});
  const pushed = await uploadDelta(opts, { agentId, baseSequence, delta, now });
  if ('output' in pushed) return pushed.output;
  const { sequence } = pushed;
  const next = slots ? nextMemo(slots, reconciled, memo, memoEntry) : null;
  const snapshotPath = storeState
    ? await persistStore(opts, { agentId, sequence, ...storeState() })
    : await persist(opts, agentId, sequence, now, (await nextBase)!, next, slotted, agentInfo.runtime_agent);
  log(`delta at sequence ${sequence}`);
  return {
    ok: true,
    sequence,
    delta: true,
    changes: changesOf(delta, base.layers),
    snapshot_path: snapshotPath,
    no_changes: false,
    recovered: false,
    agent: agentInfo,
    raw: { changed: delta.rawChanged.size, deleted: delta.rawDeleted.length },
  };
}

/**
 * Throws what the ledger's ingest would refuse of a first snapshot as written (ingest-checks.ts
 * `checkSnapshotParts`: the manifest, the layers, each record — its verdict taken from the checks
 * made with the lines — and the raw paths, in that order, so the same first refusal), as a local
 * target's refusal says it (errors.ts `ledgerRefusal`). Made before the agent is registered: a
 * snapshot no ledger of ours takes leaves the target as it was, whichever the target.
 */
function refusedByLedger(w: Awaited<ReturnType<typeof work>>, written: WrittenSnapshot | null, checked: RecordChecks): void {
  // Every record came with its line: the writer says what it wrote.
  if (written === null) throw new Error('a first snapshot was written without its records\' lines');
  try {
    w.checkSnapshotParts(written.parts, checked.covers(written.source)
      ? () => checked.verdict(written.records)
      : () => written.records.forEach((record, index) => w.checkSnapshotRecord(record, index)));
  } catch (error) {
    if (w.isLedgerError(error)) throw ledgerRefusal(error.code, error.message);
    throw error;
  }
}

/**
 * Uploads a delta: its sha256 recorded in the workspace marker first, then pushed. A conflict whose
 * entry is this machine's own upload (recover.ts) is adopted, and the sync runs again from there
 * (`output`); any other conflict is the foreign-history error with the `--rebase` way out.
 */
export async function uploadDelta(opts: SyncOptions, args: {
  agentId: string; baseSequence: number; delta: AlfDelta; now: Date;
  /** Called when the target refuses the upload, before anything else is done about it (an adoption's sync). */
  refused?: () => Promise<void>;
}): Promise<{ sequence: number } | { output: SyncOutput }> {
  const { agentId, baseSequence } = args;
  const { writeDeltaRead, adoptSentDelta, foreignHistoryError, rebaseCommand } = await work();
  const log = opts.log ?? (() => {});
  const { bytes: deltaBytes, written } = await writeDeltaRead(args.delta);
  await checkDeltaLines(written.longestLine, args.delta.entries);
  // What the last upload recorded (a killed sync's, maybe) is kept aside: this one's replaces it.
  const previousSent = await readSent(opts.workspace, agentId);
  await writeSent(opts.workspace, agentId, { base_sequence: baseSequence, sha256: sha256Hex(deltaBytes) });
  crashPoint('sent-recorded');
  try {
    const { sequence } = await opts.target.pushDelta(agentId, baseSequence, deltaBytes, written);
    crashPoint('uploaded');
    return { sequence };
  } catch (error) {
    // Refused whole (the key refused, a 413, a 503 or 507, a local ingest's refusal: first-snapshot-undo.ts
    // `refusedWhole`): nothing was taken, so the record of the upload before this one is put back, as the
    // error says nothing was stored. Left, it named a delta that never landed, and the next sync with the
    // key that replaced this one (`lineage keys rotate`) was refused as target_changed: the server's
    // entry no longer the upload recorded. (A conflict puts it back below.)
    if (isRefusedWhole(error) && !(error instanceof SyncConflictError) && previousSent) await writeSent(opts.workspace, agentId, previousSent);
    if (!(error instanceof SyncConflictError)) throw error;
    await args.refused?.();
    // Refused: this upload was never accepted, so the record of the one before it is put back. It
    // says whether the target's entry after the base is this machine's own.
    const recorded = previousSent;
    if (recorded) await writeSent(opts.workspace, agentId, recorded);
    const adopted = opts.adopted ? null : await adoptSentDelta({ target: opts.target, alfHome: opts.alfHome, agentId, baseSequence, latest: error.latestSequence, sent: recorded, now: args.now });
    if (adopted) {
      log(`adopted sequence ${adopted.sequence}: this machine's own upload`);
      return { output: { ...(await syncHoldingLock({ ...opts, adopted: true }, null)), recovered: true } };
    }
    // Still at this machine's base: which entry is there (a snapshot that replaced it, or a delta made since) says why.
    const headKind = error.latestSequence === baseSequence ? (await opts.target.latestEntry(agentId).catch(() => null))?.kind : undefined;
    throw foreignHistoryError({ agentId, local: baseSequence, latest: error.latestSequence, command: rebaseCommand(opts), target: opts.target, sent: recorded, baseSequence, headKind });
  }
}

/**
 * A sync whose `-r` is not the runtime the agent was last synced as (its client state's `runtime`,
 * or the base's `agent.source_runtime` in a state an older lineage wrote) is refused before anything
 * is written: the other runtime's export of the workspace finds none of its memories, and the delta
 * would delete them all at the head. A deliberate move passes `--change-runtime` (a restore with
 * `-w` into another runtime's workspace records that runtime: its sync needs none). Nothing is read for it.
 * Checked where the state is read: by the idle syncs that load no base (the store's, the stat
 * cache's, the store stat's: a `--change-runtime` sync that found nothing to upload records the
 * runtime without a new base) and where the base is loaded.
 */
export function checkRuntime(opts: Pick<SyncOptions, 'runtime' | 'workspace' | 'runtimeAgent' | 'changeRuntime'>, agentId: string, known: ClientState['runtime']): void {
  if (known === undefined || known === opts.runtime || opts.changeRuntime) return;
  const alias = opts.runtimeAgent ? ` --runtime-agent ${opts.runtimeAgent}` : '';
  throw new SyncError(
    'agent_id_drift',
    `agent ${agentId} (the id this ${opts.runtime} sync found in ${opts.workspace}) was last synced with -r ${known}, not -r ${opts.runtime}; nothing was synced`,
    `run \`lineage sync -r ${known} -w ${opts.workspace}${alias}\` if this is the ${known} workspace; to move the agent to ${opts.runtime} on purpose, pass --change-runtime (its records are re-keyed by ${opts.runtime}), or restore it into a ${opts.runtime} workspace first (\`lineage restore -r ${opts.runtime} --agent ${agentId} -w DIR\`) and sync that`,
  );
}

/** The runtime a base's manifest says it was exported from, when it is one of lineage's. */
function baseRuntime(manifest: JsonObject | undefined): ClientState['runtime'] {
  const agent = manifest?.agent;
  return agent && typeof agent === 'object' && !Array.isArray(agent) ? runtimeOf(agent.source_runtime) : undefined;
}

function knownKeys(memo: RecordMemo | null): (key: string) => boolean {
  return memo === null ? () => false : (key) => memo.has(key);
}

/**
 * reconcileWithBase of the export; slots left unbuilt (the memo knows them) go as known records.
 * `memoEntry[j]`: the memo entry slot j was known by, or -1 (null when the memo was not used).
 */
function reconcileSlots({ KnownRecord, KnownRecordMismatch, reconcileWithBase }: Awaited<ReturnType<typeof work>>, args: { agentId: string; base: RecordLines; memo: RecordMemo | null; records?: MemoryRecord[]; slots: RecordSlot[] | null }): {
  reconciled: BaseReconcileResult;
  memoEntry: Int32Array | null;
} {
  const { agentId, base, memo, slots } = args;
  if (!slots) return { reconciled: reconcileWithBase({ agentId, base, curr: args.records! }), memoEntry: null };
  let known = 0;
  const memoEntry = new Int32Array(slots.length).fill(-1);
  const curr = slots.map((slot, j) => {
    if (slot.record) return slot.record;
    const entry = memo?.entryOf(slot.key) ?? -1;
    if (entry < 0) return slot.build();
    memoEntry[j] = entry;
    return new KnownRecord(memo!.idAt(entry), slot, known++ % SPOT_CHECK === 0);
  });
  try {
    return { reconciled: reconcileWithBase({ agentId, base, curr }), memoEntry };
  } catch (error) {
    if (!(error instanceof KnownRecordMismatch)) throw error;
    return { reconciled: reconcileWithBase({ agentId, base, curr: slots.map((slot) => slot.record ?? slot.build()) }), memoEntry: null };
  }
}

/**
 * The memo for the next base: each record paired early with its base line (so its line is in the
 * next base). A known record that paired did so as its memo entry said (the id it was known by is
 * its line's), so that entry is carried over as it is.
 */
function nextMemo(slots: RecordSlot[], reconciled: BaseReconcileResult, memo: RecordMemo | null, memoEntry: Int32Array | null): MemoDraft {
  const reusedEntries: number[] = [];
  const added: (readonly [string, string])[] = [];
  slots.forEach((slot, j) => {
    if (reconciled.lines[j] === undefined) return;
    const entry = memoEntry?.[j] ?? -1;
    if (entry >= 0) reusedEntries.push(entry);
    else added.push([slot.key, reconciled.records[j]!.id]);
  });
  return { added, reused: memo && reusedEntries.length > 0 ? { memo, entries: reusedEntries } : undefined };
}

async function persist(
  opts: SyncOptions, agentId: string, sequence: number, now: Date, baseSnapshot: Uint8Array, memo: MemoDraft | null,
  exported: Pick<SlotExport, 'fileKeys' | 'fileStats' | 'statContext' | 'agentName'> | null, runtimeAgent: string,
): Promise<string> {
  const fileKeys = exported?.fileKeys ?? null;
  const baseSha = sha256Hex(baseSnapshot);
  const syncedAt = now.toISOString();
  const stateDir = statePaths(opts.alfHome, agentId).dir;
  const memoFile = memoPath(stateDir, agentId);
  await mkdir(stateDir, { recursive: true, mode: 0o700 }).catch((error: unknown) => stateWriteFailed(error, stateDir, agentId, sequence));
  // The base first, with what describes it (the memo and the stat cache name its sha256: read only
  // with that base), then the TOML that points at it, then the workspace marker. A kill between
  // any two leaves a state the next sync reads right: an older TOML under a newer base meets the
  // target's 409, and the upload it recorded is adopted (folding it onto a base that already holds
  // it changes nothing).
  const [basePath] = await Promise.all([
    writeBaseFile(opts.alfHome, agentId, baseSnapshot),
    memo ? writeRecordMemo(memoFile, memo, baseSha) : removeRecordMemo(memoFile),
    fileKeys ? writeFileKeys(fileKeysPath(stateDir, agentId), fileKeys) : null,
  ]).catch((error: unknown) => stateWriteFailed(error, stateDir, agentId, sequence));
  // The stat cache names the base file just written (its inode: so it is written after it).
  const identity = exported?.fileStats ? await baseIdentity(basePath) : null;
  if (identity && exported?.fileStats) {
    await writeStatCache(statCachePath(stateDir, agentId), exported.fileStats, identity, exported.statContext ?? '-', sequence, summaryOf(opts, exported))
      .catch((error: unknown) => stateWriteFailed(error, stateDir, agentId, sequence));
  }
  // So does the store stat of a SQLite store (naming the base, and the sequence the upload was
  // accepted at: a kill before the TOML is finished from it, as from the stat cache).
  if (opts.store) {
    await writeStoreStat(opts.alfHome, opts.store.key, { agentId, agentName: runtimeAgent, sequence, fingerprint: opts.store.fingerprint }, basePath)
      .catch((error: unknown) => stateWriteFailed(error, stateDir, agentId, sequence));
  }
  crashPoint('files-written');
  await writeStateToml(opts.alfHome, { agent_id: agentId, last_synced_sequence: sequence, last_synced_at: syncedAt, runtime: opts.runtime })
    .catch((error: unknown) => stateWriteFailed(error, stateDir, agentId, sequence));
  crashPoint('state-written');
  await writeSyncedFrom(opts.workspace, { agent_id: agentId, sequence, synced_at: syncedAt });
  return basePath;
}

/**
 * The state after an accepted upload, kept in the store (written whole: this sync's base was a
 * `.alf`, or it had none), then the TOML, then the workspace marker.
 */
async function persistStore(opts: SyncOptions, args: { agentId: string } & Omit<FullState, 'workspace'>): Promise<string> {
  const { sequence, ...state } = args;
  return commitStore(opts, await prepareStore(opts, state), { agentId: args.agentId, sequence, now: args.now });
}

/** The next state's log written (no index names it yet), or why it could not be (reported once the upload is accepted). */
export type PreparedStore = { ok: true; state: PreparedState } | { ok: false; error: unknown };

/** A prepared state no upload was accepted for: its log removed when it is a new generation's (write-state.ts `discard`). */
export async function discardPrepared(preparing: Promise<PreparedStore>): Promise<void> {
  const prepared = await preparing;
  if (prepared.ok) await prepared.state.discard().catch(() => {});
}

async function prepareStore(opts: SyncOptions, args: { agentId: string } & Omit<FullState, 'workspace' | 'sequence'>): Promise<PreparedStore> {
  const { agentId } = args;
  const paths = statePaths(opts.alfHome, agentId);
  try {
    const code = await work();
    const { prepareFullState } = await import('./store/full-state');
    await mkdir(paths.dir, { recursive: true, mode: 0o700 });
    const current = (await readIndex(storePaths(paths.dir, agentId).index).catch(() => null))?.index ?? null;
    return { ok: true, state: await prepareFullState(code, { stateDir: paths.dir, agentId, current, state: { ...args, workspace: path.resolve(opts.workspace) } }) };
  } catch (error) {
    return { ok: false, error };
  }
}

/**
 * The prepared store named by its index at `sequence` (the upload accepted), then the TOML and the
 * marker. A failure here or in the preparation is `state_write_failed`: the upload is adopted next time.
 */
export async function commitStore(opts: SyncOptions, prepared: PreparedStore, args: { agentId: string; sequence: number; now: Date }): Promise<string> {
  const { agentId, sequence, now } = args;
  const paths = statePaths(opts.alfHome, agentId);
  try {
    if (!prepared.ok) throw prepared.error;
    const index = await prepared.state.commit(sequence);
    await removeStale(paths.dir, agentId, { generation: index.generation, keepAlf: false });
    crashPoint('files-written');
    await writeStateToml(opts.alfHome, { agent_id: agentId, last_synced_sequence: sequence, last_synced_at: now.toISOString(), runtime: opts.runtime });
    crashPoint('state-written');
  } catch (error) {
    stateWriteFailed(error, paths.dir, agentId, sequence);
  }
  await writeSyncedFrom(opts.workspace, { agent_id: agentId, sequence, synced_at: now.toISOString() });
  return paths.snapshot;
}

/**
 * Per slot, the partition our writer puts an output that stands for its base line (a known record
 * paired early: `lineOnlyRecord`) in — its line's partition when that is one of ours, else the one
 * its timestamps give; undefined for the others.
 */
function placedOf(base: RecordLines, reconciled: BaseReconcileResult, memoEntry: Int32Array | null): (string | undefined)[] {
  return Array.from(reconciled.paired, (i, j) => {
    if (i < 0 || memoEntry === null || memoEntry[j]! < 0) return undefined;
    const file = base.partitionFile(i);
    return isOwnPartitionFile(file) ? file : partitionFileOf({ temporal: base.timestamps(i) } as MemoryRecord);
  });
}

/**
 * The target accepted the upload, but this machine's state could not be written (a full disk, a
 * read-only ALF_HOME). The upload's sha256 is in the workspace marker: the next sync adopts it.
 */
export function stateWriteFailed(error: unknown, stateDir: string, agentId: string, sequence: number): never {
  const reason = error instanceof Error ? error.message : String(error);
  throw new SyncError(
    'state_write_failed',
    `the upload of agent ${agentId} was accepted at sequence ${sequence}, but this machine's sync state could not be written to ${stateDir}: ${reason}`,
    'free space (or fix permissions) under ALF_HOME and run `lineage sync` again: it recognizes its own upload and adopts that sequence',
  );
}

/**
 * The delta between the base and the reconciled export, or null when nothing differs. `entries`
 * are the record operations when the caller has them already (else `computeDelta` of the two).
 */
export function buildDelta(args: {
  base: Pick<AlfSnapshot, 'raw' | 'layers'> & Partial<Pick<AlfSnapshot, 'records'>>;
  current: Pick<AlfSnapshot, 'raw' | 'layers' | 'records'>;
  entries?: DeltaEntry[];
  baseSequence: number;
  runtime: Runtime;
  agentId: string;
  now: Date;
  baseTimestamp?: string;
}): AlfDelta | null {
  const entries = args.entries ?? computeDelta(args.base.records ?? [], args.current.records);
  const { changed, deleted } = diffRaw(args.base.raw, args.current.raw, args.runtime);
  const layers: AlfDelta['layers'] = {};
  const identity = args.current.layers.identity;
  if (identity && !jsonEqual(withoutUpdatedAt(identity), withoutUpdatedAt(args.base.layers.identity))) layers.identity = identity;
  const changes: JsonObject = {};
  // Diffed by id as the reference's reconcile diffs them (CONTRACT §5: a principal's top-level
  // `updated_at` not compared, a credential whole): a document whose entries are the base's (in
  // another order, say) is not sent. The principals changed are named (CONTRACT §3.2 `changed_ids`).
  for (const name of ['principals', 'credentials'] as const) {
    const doc = args.current.layers[name] ?? (READS_LAYER[args.runtime][name] && entriesOf(args.base.layers[name], name).length > 0 ? { [name]: [] } : undefined);
    if (!doc) continue;
    const diff = layerDiff(args.base.layers, doc, name);
    if (diff.creates + diff.updates + diff.deletes === 0) continue;
    layers[name] = doc;
    if (name === 'principals' && diff.changedIds.length > 0) changes.principals = { file: LAYER_FILES.principals, changed_ids: diff.changedIds };
  }
  if (entries.length === 0 && changed.size === 0 && deleted.length === 0 && Object.keys(layers).length === 0) return null;
  const sync: JsonObject = { base_sequence: args.baseSequence, new_sequence: 0 };
  if (args.baseTimestamp) sync.base_timestamp = args.baseTimestamp;
  sync.new_timestamp = args.now.toISOString();
  return {
    manifest: {
      alf_version: ALF_VERSION,
      created_at: args.now.toISOString(),
      agent: { id: args.agentId, source_runtime: args.runtime },
      sync,
      changes,
    },
    entries,
    layers,
    rawChanged: changed,
    rawDeleted: deleted,
  };
}

/**
 * The sync JSON's `changes` of a delta uploaded over a base with these layers (CONTRACT §2.3):
 * the record operations, then `credentials` and `principals` — their entries diffed by id between
 * the base's document and the delta's (CONTRACT §5: a new id a create, an id gone a delete, the
 * same id with another entry an update; a principal's top-level `updated_at` is not compared, a
 * credential is compared whole), given only when the delta carries the document and one count is
 * not zero — then `identity: true` when the delta carries the identity (a single document: it changed).
 * The keys in the reference's order.
 */
export function changesOf(delta: Pick<AlfDelta, 'entries' | 'layers'>, baseLayers: AlfDelta['layers']): SyncChanges {
  const changes: SyncChanges = countOps(delta.entries);
  for (const name of ['credentials', 'principals'] as const) {
    const doc = delta.layers[name];
    if (!doc) continue;
    const { changedIds: _named, ...counts } = layerDiff(baseLayers, doc, name);
    if (counts.creates + counts.updates + counts.deletes > 0) changes[name] = counts;
  }
  if (delta.layers.identity) changes.identity = true;
  return changes;
}

/** A layer document's entries (`{"principals": [...]}`); none when it lists none or is absent. */
function entriesOf(doc: JsonObject | undefined, name: 'principals' | 'credentials'): unknown[] {
  const list = doc?.[name];
  return Array.isArray(list) ? list : [];
}

/**
 * A layer document's entries (`doc`) diffed by id against the base's: a principal's top-level
 * `updated_at` not compared, a credential whole (CONTRACT §5). What buildDelta sends a layer by and
 * changesOf counts: one verdict.
 */
function layerDiff(baseLayers: AlfDelta['layers'], doc: JsonObject, name: 'principals' | 'credentials'): LayerDiff {
  return diffById(entriesOf(baseLayers[name], name), entriesOf(doc, name), name === 'principals');
}

/** Entries' operations, and the ids of those created, updated or deleted (each once). */
type LayerDiff = OpCounts & { changedIds: string[] };

/**
 * Entries diffed by id, as `computeDelta` diffs records: a new id not in the old list a create,
 * in both and not equal an update, an old id not in the new list a delete. An entry without a
 * string id stands for itself (its canonical JSON is its id): it is only ever created or deleted,
 * and named by no id. `changedIds`: the creates' and updates' ids in the new list's order, then the
 * deletes' in the old list's (computeDelta's order).
 */
function diffById(before: readonly unknown[], after: readonly unknown[], dropUpdatedAt: boolean): LayerDiff {
  const idOf = (entry: unknown) => {
    const id = isJsonObject(entry) ? entry.id : undefined;
    return typeof id === 'string' ? `id:${id}` : `entry:${canonicalJson(entry)}`;
  };
  const compared = (entry: unknown) => {
    if (!dropUpdatedAt || !isJsonObject(entry)) return entry;
    const { updated_at: _ignored, ...rest } = entry;
    return rest;
  };
  const old = new Map(before.map((entry) => [idOf(entry), entry]));
  const ids = new Set(after.map(idOf));
  const diff: LayerDiff = { creates: 0, updates: 0, deletes: 0, changedIds: [] };
  const named = new Set<string>();
  const name = (entry: unknown) => {
    const id = isJsonObject(entry) ? entry.id : undefined;
    if (typeof id === 'string' && !named.has(id)) {
      named.add(id);
      diff.changedIds.push(id);
    }
  };
  for (const entry of after) {
    const id = idOf(entry);
    if (!old.has(id)) {
      diff.creates++;
      name(entry);
    } else if (!jsonEqual(compared(old.get(id)), compared(entry))) {
      diff.updates++;
      name(entry);
    }
  }
  for (const entry of before) {
    if (ids.has(idOf(entry))) continue;
    diff.deletes++;
    name(entry);
  }
  return diff;
}

/**
 * Whether the runtime's export reads the layer from its workspace, so that an export without it
 * says "none" (CONTRACT §3.2: all principals removed ⇒ `{"principals": []}`, the full document).
 * OpenClaw and Hermes read principals (USER.md, memories/USER.md): the file gone, the principals
 * went. ZeroClaw reads none (its USER.md is carried as a file only), and no adapter reads
 * credentials: a base may still hold some — a reference client's snapshot restored or rebased
 * onto (a vault's credentials, several principals) — which this client never read and so never
 * removes; a delta without the document leaves the head's as it is. Identity is never deleted by
 * a delta (an export without one sends none).
 */
const READS_LAYER: Record<Runtime, Record<'principals' | 'credentials', boolean>> = {
  openclaw: { principals: true, credentials: false },
  hermes: { principals: true, credentials: false },
  zeroclaw: { principals: false, credentials: false },
};

function withoutUpdatedAt(doc: JsonObject | undefined): JsonObject | undefined {
  if (!doc) return doc;
  const { updated_at: _ignored, ...rest } = doc;
  return rest;
}
