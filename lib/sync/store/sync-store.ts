/**
 * A sync whose base is the client-state store (OpenClaw): work in proportion to what changed.
 * Files whose stat data are unchanged are not opened; files unchanged and stable are not keyed,
 * built or reconciled; only the records of the files reconciled are read from the store (and of
 * them, only the lines a known record does not pair with). The delta is built from those, and the
 * state is written by appending what changed to the log and rewriting the index (write-state.ts).
 */
import path from 'node:path';
import { exportOpenclawChanges, type ChangesExport, type ExportedFile } from '@/lib/adapters/openclaw/export-changes';
import { RECORD_STATE_VERSION } from '@/lib/adapters/openclaw/records';
import { rawArchivePath } from '@/lib/adapters/shared';
import type { AlfDelta } from '@/lib/core/archive/types';
import { statePaths, type ClientState } from '../state';
import { buildDelta, changesOf, commitStore, discardPrepared, uploadDelta, type PreparedStore, type SyncOptions, type SyncOutput } from '../sync';
import { readSyncedFrom, writeSyncedFrom } from '../synced-marker';
import { SyncError } from '../errors';
import { startBackgroundCompaction } from './background-compaction';
import { StoreDamaged } from './errors';
import type { OpenStore } from './open-store';
import type { KnownReconcile } from './reconcile-known';
import type { NextFile } from './write-state';

/**
 * The heavy halves of a sync (archive writers, reconcile; the store's), loaded once a file changed.
 * The promises are kept: a process that syncs again (a daemon, the bench) asks its module loader
 * nothing more (under tsx, each `import()` is a round trip to the loader's hooks thread).
 */
let workModule: Promise<typeof import('../sync-work')> | undefined;
let storeWorkModule: Promise<typeof import('./store-work')> | undefined;
const work = () => (workModule ??= import('../sync-work'));
const storeWork = () => (storeWorkModule ??= import('./store-work'));

export async function syncWithStore(opts: SyncOptions, args: { store: OpenStore; state: ClientState & { last_synced_sequence: number }; finished: boolean }): Promise<SyncOutput> {
  const { store, state } = args;
  const log = opts.log ?? (() => {});
  const now = opts.clock();
  const baseSequence = state.last_synced_sequence;
  if (args.finished) log(`finished the state write a killed sync left: the base is at sequence ${baseSequence}`);
  const workspace = path.resolve(opts.workspace);
  try {
    const keyedAhead = opts.keysAhead?.forState(store.digest(), workspace);
    const exported = await exportOpenclawChanges({ workspace: opts.workspace, runtimeAgent: opts.runtimeAgent, persistAgentId: true, clock: opts.clock }, async (_agent, context) => {
      const prior = store.prior(context, workspace);
      return keyedAhead ? { ...prior, ahead: keyedAhead.ahead(context) } : prior;
    });
    for (const warning of exported.warnings) opts.warn?.(warning);
    if (keyedAhead && keyedAhead.taken > 0) log(`${keyedAhead.taken} changed file${keyedAhead.taken === 1 ? '' : 's'} keyed ahead by the watch`);
    const agentId = exported.agentId;
    const agent = {
      runtime_agent: opts.runtimeAgent ?? (exported.allUnchanged ? store.index.meta.agent_name : exported.agentName),
      alf_agent_id: agentId, source: opts.runtimeAgent ? 'flag' : 'workspace',
    } as const;
    const snapshotPath = statePaths(opts.alfHome, agentId).snapshot;
    const idle = async (why: string): Promise<SyncOutput> => {
      log(`no changes since sequence ${baseSequence}${why}`);
      // The workspace is at the base's sequence: its marker says so unless it already did.
      if ((await readSyncedFrom(opts.workspace, agentId))?.sequence !== baseSequence) {
        await writeSyncedFrom(opts.workspace, { agent_id: agentId, sequence: baseSequence, synced_at: now.toISOString() });
      }
      return { ok: true, sequence: baseSequence, delta: false, snapshot_path: snapshotPath, no_changes: true, recovered: false, agent };
    };
    if (exported.allUnchanged) return await idle(' (no file changed)');

    const [code, { planFiles, plannedSlots, reconcileKnown, nextRecordFiles }] = await Promise.all([work(), storeWork()]);
    const plan = planFiles(store, exported.files);
    const slotted = plannedSlots(plan);
    const reconciled = reconcileKnown(code, { agentId, lines: plan.lines, slots: slotted.slots, known: slotted.known, log: store.log, spotCheck: true, reserved: plan.carriedId });
    const delta = deltaOf({ store, exported, reconciled, agentId, baseSequence, now, baseTimestamp: state.last_synced_at });
    if (!delta) return await idle('');
    const files = [
      ...nextRecordFiles(code, { agentId, store, plan, slots: slotted, reconciled }),
      ...otherFiles(exported.files, store, delta.sameRaw),
    ];
    // The next state's log is written (and flushed) while the delta uploads: no index names it
    // until the upload is accepted (write-state.ts prepareState). Refused, it is dropped before
    // anything else writes the state (an adoption syncs again, and may write the same generation).
    const preparing = prepare(opts, { agentId, store, now, exported, files });
    let dropped: Promise<void> | null = null;
    const drop = () => (dropped ??= discardPrepared(preparing));
    let pushed: Awaited<ReturnType<typeof uploadDelta>>;
    try {
      pushed = await uploadDelta(opts, { agentId, baseSequence, delta: delta.delta, now, refused: drop });
    } catch (error) {
      await drop();
      throw error;
    }
    if ('output' in pushed) return pushed.output;
    const { sequence } = pushed;
    const prepared = await preparing;
    await commitStore(opts, prepared, { agentId, sequence, now });
    log(`delta at sequence ${sequence}`);
    if (prepared.ok && prepared.state.compactionDue) {
      // The log holds more dead bytes than live ones: rewritten by a detached process once this sync lets the lock go.
      startBackgroundCompaction(opts.alfHome, agentId);
      log('compacting the client state in the background');
    }
    return {
      ok: true, sequence, delta: true, changes: changesOf(delta.delta, store.index.meta.layers), snapshot_path: snapshotPath, no_changes: false, recovered: false, agent,
      raw: { changed: delta.delta.rawChanged.size, deleted: delta.delta.rawDeleted.length },
    };
  } catch (error) {
    if (!(error instanceof StoreDamaged)) throw error;
    const { rebaseCommand } = await work();
    throw new SyncError(
      'state_damaged',
      `this machine's sync state of the workspace ${opts.workspace} (under ${statePaths(opts.alfHome, '').dir}) cannot be read: ${error.message}`,
      `run \`${rebaseCommand(opts)}\` to take ${opts.target.label}'s latest as this machine's base (the workspace is left as it is; the next \`lineage sync\` uploads its difference)`,
    );
  } finally {
    store.log.close();
  }
}

/**
 * The delta of this sync, or null when nothing differs: the reconciled files' operations, the raw
 * files read whose bytes differ (or are new), the files gone, and the layers. `sameRaw`: files read
 * whose bytes are the base's.
 */
function deltaOf(args: {
  store: OpenStore; exported: ChangesExport; reconciled: KnownReconcile; agentId: string; baseSequence: number; now: Date; baseTimestamp?: string;
}): { delta: AlfDelta; sameRaw: Set<string> } | null {
  const { store, exported } = args;
  const current = new Map<string, Uint8Array>();
  const base = new Map<string, Uint8Array>();
  const sameRaw = new Set<string>();
  const present = new Set<string>();
  // Digests made the same way (the same layout context, so the same tier, and the same versions)
  // differ only for other bytes.
  const comparable = store.index.context === exported.statContext && store.index.meta.key_version === RECORD_STATE_VERSION;
  for (const file of exported.files) {
    present.add(file.rel);
    if (file.bytes === null) continue;
    const name = rawArchivePath('openclaw', file.rel);
    current.set(name, file.bytes);
    const prior = store.byRel.get(file.rel);
    if (!prior) continue;
    const digest = file.stat?.digest ?? null;
    // Other bytes: the base's are not read (left out of `base`, the file is changed).
    if (comparable && digest !== null && prior.digest !== null && digest !== prior.digest) continue;
    // The same digest is the same bytes (it is a sha256 over them); else the base's are compared.
    const before = digest !== null && digest === prior.digest ? file.bytes : store.log.read(prior.raw);
    if (before === file.bytes || Buffer.from(before).equals(file.bytes)) sameRaw.add(file.rel);
    base.set(name, before);
  }
  for (const prior of store.index.files) if (!present.has(prior.rel)) base.set(rawArchivePath('openclaw', prior.rel), new Uint8Array(0));
  const delta = buildDelta({
    base: { raw: base, layers: store.index.meta.layers },
    current: { raw: current, layers: exported.layers, records: [] },
    entries: args.reconciled.entries, baseSequence: args.baseSequence, runtime: 'openclaw', agentId: args.agentId, now: args.now, baseTimestamp: args.baseTimestamp,
  });
  return delta && { delta, sameRaw };
}

/** The files that bear no records, in walk order: their bytes, kept or new. */
function otherFiles(files: readonly ExportedFile[], store: OpenStore, sameRaw: ReadonlySet<string>): NextFile[] {
  const out: NextFile[] = [];
  for (const file of files) {
    if (file.records) continue;
    const prior = store.byRel.get(file.rel);
    const raw = file.bytes === null || sameRaw.has(file.rel) ? prior!.raw : file.bytes;
    // A record-bearing path that is not UTF-8 (no stat entry): read every time.
    const stat = file.stat ?? { ino: 0n, size: 0n, mtimeNs: 0n, ctimeNs: 0n };
    out.push({ rel: file.rel, stat, digest: null, kind: file.stat ? 'n' : 'r', raw, rows: null });
  }
  return out;
}

/** The next state's log, laid out from the store and written while the delta uploads. */
async function prepare(opts: SyncOptions, args: { agentId: string; store: OpenStore; now: Date; exported: ChangesExport; files: NextFile[] }): Promise<PreparedStore> {
  const { agentId, exported } = args;
  try {
    const { prepareState } = await storeWork();
    const state = await prepareState({
      stateDir: statePaths(opts.alfHome, agentId).dir, agentId, current: args.store.index,
      next: {
        context: exported.statContext, files: args.files,
        meta: { agent_name: exported.agentName, workspace: path.resolve(opts.workspace), created_at: args.now.toISOString(), key_version: RECORD_STATE_VERSION, layers: exported.layers, store_raw: true },
      },
    });
    return { ok: true, state };
  } catch (error) {
    return { ok: false, error };
  }
}
