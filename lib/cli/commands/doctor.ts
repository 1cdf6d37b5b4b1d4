import fs from 'node:fs';
import type { Command } from 'commander';
import type { IndexFailure, PendingEntry } from '@/lib/history/pending-index';
import type { UnlinkedMoves } from '@/lib/history/unlinked-moves';
import type { DamagedBlob, LeftoverBlob, RecoveredBlob, RemovedLeftover, SupersededLost } from '@/lib/ledger/consistency';
import { printJson, progress } from '../output';
import { cliStorageConfig, openScaleOut, storageOptions, type ScaleOutConfig, type StorageFlags } from '../storage';

interface Findings {
  recovered: RecoveredBlob[];
  damaged: DamagedBlob[];
  unledgered: { agent_id: string; sequence: number; kind: string; key: string; chains: boolean }[];
  /**
   * Lost commits the ingest refuses as built on another entry than their base (found without --repair
   * too, on both backends; `--repair` says the same of those it tried, `recovered[].superseded`).
   * Reported, not a problem: nothing readable depends on them, their blobs are kept, and the machine
   * that made them is told at its next sync — as such a blob is once the agent's next entry is stored.
   */
  superseded: SupersededLost[];
  /**
   * Blobs of deleted agents an interrupted delete left (after `--repair`: those still there). Not
   * unledgered data: the agent is never registered again from them.
   */
  leftovers: LeftoverBlob[];
  /** `--repair`: the leftovers it removed, finishing the deletions their agents' owners asked for. */
  removed: RemovedLeftover[];
  /** How to re-ingest what continues a ledger, said when `--repair` was not given. */
  repairHint: string;
  /** `--repair` on a data directory: the packing pass over what local syncs left whole. */
  packing?: Awaited<ReturnType<typeof packLeftWhole>>;
  /**
   * A data directory: the entries not folded into the history index yet (a local sync's large
   * upload, folded by a background catch-up, or by whoever reads the index first) — not a problem;
   * with `--repair`, how many were folded first. `failure`: the last catch-up failed on one of
   * them (a full disk) — a problem: nothing folds them until space is freed and someone reads.
   * `unlinkedMoves`: the moves (renamed sections) an index an older lineage wrote holds as a delete
   * and a create — not a problem of the ledger: `lineage index --rebuild` links them.
   */
  index?: { pending: PendingEntry[]; folded?: number; failure: IndexFailure | null; blocked: IndexBlocked | null; unlinkedMoves: UnlinkedMoves[] };
}

/**
 * Entries pending, no failure recorded, no catch-up running, and the data directory's disk full: a
 * catch-up that started on a disk already full had no room for its marker nor for its failure record
 * (pending-index.ts `recordIndexFailure`), and none can fold them now. Doctor's own finding — a problem.
 */
interface IndexBlocked {
  code: 'disk_full';
  free_bytes: number;
}

/** Below this, the data directory's disk is taken as full: a fold writes index pages and the WAL. */
const FULL_BELOW_BYTES = 1024 * 1024;

/** Whether the disk holding `dir` is full (statfs: the bytes an unprivileged writer may still take); null when it cannot be told. */
function diskFull(dir: string): IndexBlocked | null {
  try {
    const stats = fs.statfsSync(dir);
    const free = stats.bavail * stats.bsize;
    return free < FULL_BELOW_BYTES ? { code: 'disk_full', free_bytes: free } : null;
  } catch {
    return null;
  }
}

/** The pass a background packer would run, here and now (a whole pass: whatever was left whole). */
async function packLeftWhole(dataDir: string): Promise<{ packed: number; considered: number } | { running: number | null } | { off: true }> {
  const [{ packingEnabled, requestPacking }, { runPacker }] = await Promise.all([
    import('@/lib/ledger/background-packer'), import('@/lib/ledger/run-packer'),
  ]);
  if (!packingEnabled()) return { off: true };
  requestPacking(dataDir);
  const run = await runPacker({ dataDir });
  return run.ran ? { packed: run.packed, considered: run.considered } : { running: run.holder ?? null };
}

/** The data directory: lib/ledger/consistency.ts on the SQLite ledger and its blob files. */
async function embeddedFindings(dataDir: string, repair: boolean): Promise<Findings> {
  const [{ findDamagedBlobs, openLedger, recoverUnledgered }, { findSupersededLost, findUnreferencedBlobs, removeDeletedLeftovers }, { historyIndexer }, { existingDataDir }, { backgroundCatchUp, catchUpIndex, indexFailure, pendingEntries, recordIndexFailure }] = await Promise.all([
    import('@/lib/ledger'), import('@/lib/ledger/consistency'), import('@/lib/storage/embedded-ingest'), import('../options'), import('@/lib/history/pending-index'),
  ]);
  const { unlinkedMoves } = await import('@/lib/history/unlinked-moves');
  const ledger = openLedger(existingDataDir(dataDir));
  // Deleted agents' leftovers first: what is left is then only what no deletion explains.
  const removed = repair ? await removeDeletedLeftovers(ledger) : [];
  const recovered = repair ? await recoverUnledgered(ledger, historyIndexer) : [];
  const packing = repair ? await packLeftWhole(ledger.db.dataDir) : undefined;
  // After the re-ingest (whose fold may itself be left pending); a damaged pending blob is listed below, not folded.
  const folded = repair ? await catchUpIndex(ledger).catch((error: unknown) => {
    progress(`the history index was not caught up: ${error instanceof Error ? error.message : String(error)}`);
    recordIndexFailure(ledger.db.dataDir, ledger.db.sqlite, error);
    return undefined;
  }) : undefined;
  const { unledgered, leftovers } = await findUnreferencedBlobs(ledger);
  const pending = pendingEntries(ledger.db.sqlite);
  const failure = indexFailure(ledger.db.dataDir, ledger.db.sqlite);
  return {
    superseded: await findSupersededLost(ledger, unledgered), packing, recovered, damaged: await findDamagedBlobs(ledger), unledgered: unledgered.map(({ file: _file, ...b }) => b), leftovers, removed,
    repairHint: 'run `lineage doctor --repair` with the server stopped to re-ingest them',
    index: { pending, ...(folded === undefined ? {} : { folded }), failure, blocked: pending.length > 0 && failure === null && backgroundCatchUp(ledger.db.dataDir) === null ? diskFull(ledger.db.dataDir) : null,
      unlinkedMoves: unlinkedMoves(ledger.db.sqlite) },
  };
}

/** PostgreSQL + the bucket: lib/storage/consistency.ts through the storage seam. */
async function scaleOutFindings(config: ScaleOutConfig, repair: boolean): Promise<Findings> {
  const [{
    findDamagedEntries, findDeletedLeftoverObjects, findUnledgeredObjects, recoverUnledgeredObjects, removeDeletedLeftoverObjects,
  }, { findSupersededLost }] = await Promise.all([import('@/lib/storage/consistency'), import('@/lib/ledger/consistency')]);
  const storage = await openScaleOut(config);
  const removed = repair ? await removeDeletedLeftoverObjects(storage) : [];
  const recovered = repair ? await recoverUnledgeredObjects(storage) : [];
  const unledgered = await findUnledgeredObjects(storage);
  // The embedded doctor's finding, read through the storage seam (the agent's row, the head entry, the bucket's objects).
  const superseded = await findSupersededLost({
    agent: (agentId) => storage.getAgent({ agentId }),
    entryAt: async (agentId, seq, kind) => (await storage.listEntries({ agentId, sinceSeq: seq - 1, upToSeq: seq, kind })).find((e) => e.seq === seq && e.kind === kind) ?? null,
    blob: (key) => storage.blobs.get(key),
    entryBytes: (entry) => storage.readEntryBytes({ entry }),
  }, unledgered);
  return {
    superseded, recovered, damaged: await findDamagedEntries(storage), unledgered,
    leftovers: await findDeletedLeftoverObjects(storage), removed,
    repairHint: 'run `lineage doctor --repair` to re-ingest them through the normal append (servers may keep running)',
  };
}

/** What to run once the cause of a failed catch-up is gone. */
function failureHint(failure: Pick<IndexFailure, 'code'>, dataDir: string): string {
  const data = ` --data ${dataDir}`;
  const first = failure.code === 'disk_full' ? 'Free some space on that disk, then run' : failure.code === 'blob_corrupt' ? 'Restore that blob from a backup, then run' : 'Once that is fixed, run';
  return `${first} \`lineage index --catch-up${data}\` (or \`lineage doctor --repair${data}\`) to fold it.`;
}

/**
 * `lineage doctor [--repair] [--data DIR | --database-url … --blob-url …]`: do the ledger and its
 * blobs agree? Lists entries whose blob is missing or damaged, and blobs with no entry — those that
 * continue an agent's ledger are uploads whose commit is not there (a deleted lineage.db-wal; on
 * the scale-out storage, a database restored from an older dump). `--repair` re-ingests those in
 * order; on a data directory (run it with the server stopped) it then packs what local syncs left
 * whole in complete packing groups (`packing`: what the pass did, or the pid of a background packer
 * doing it), then folds the entries a local sync left for the history index to fold later
 * (`index_pending` lists them — not a problem: the next reader folds them — and `index_folded` says
 * how many --repair folded; `index_failure`, a problem: the entry a background catch-up failed to fold, why and
 * when — a full disk — with what to run once space is freed; `index_blocked`, a problem doctor finds itself: entries
 * pending, no catch-up running and the disk full — a catch-up that started on a disk already full had no room to
 * record its failure). Blobs a deleted agent left (its delete was interrupted after its row went) are
 * `leftovers`, never re-ingested; `--repair` removes them (`removed`), finishing the deletion the agent's owner
 * asked for — the only blobs doctor removes. Nothing else is ever deleted: a missing or damaged blob comes back only
 * from a backup (bucket versioning). Prints one JSON object; `ok` is false (exit 1) while a problem remains.
 */
export function registerDoctorCommand(program: Command): void {
  storageOptions(program
    .command('doctor')
    .description('check that the ledger and its blobs agree; --repair re-ingests uploads whose commit was lost')
    .option('--repair', 're-ingest, in order, the blobs that continue an agent\'s ledger but have no entry; remove the blobs a deleted agent\'s interrupted delete left'))
    .action(async (opts: StorageFlags & { repair?: boolean }) => {
      const config = await cliStorageConfig(opts, 'doctor');
      const repair = opts.repair === true;
      const { recovered, damaged, unledgered: found, leftovers, removed, repairHint, packing, index, superseded } = config.backend === 'scale-out'
        ? await scaleOutFindings(config, repair)
        : await embeddedFindings(config.dataDir, repair);
      // A lost commit the ingest refuses as built on another entry (found here, or refused by --repair) is not lost data to bring back.
      const place = (b: { agent_id: string; sequence: number; kind: string }) => `${b.agent_id}/${b.sequence}/${b.kind}`;
      const refused = new Set([...superseded.map(place), ...recovered.filter((r) => r.superseded).map(place)]);
      // --repair stops an agent at its refused commit: the lost commits after it were built on it.
      for (const r of recovered) {
        if (!r.recovered && recovered.some((s) => s.superseded && s.agent_id === r.agent_id && s.sequence < r.sequence)) refused.add(place(r));
      }
      const unledgered = found.map((b) => (b.chains && refused.has(place(b)) ? { ...b, superseded: true as const } : b));
      const lost = unledgered.filter((b) => b.chains && !refused.has(place(b)));
      for (const d of damaged) progress(`damaged: ${d.problem}`);
      for (const b of lost) progress(`lost commit: agent ${b.agent_id} sequence ${b.sequence} (${b.kind}) has a blob but no ledger entry`);
      if (lost.length > 0 && !repair) progress(repairHint);
      for (const r of recovered) {
        if (!r.recovered) progress(`not re-ingested: agent ${r.agent_id} sequence ${r.sequence} (${r.kind}): ${r.error ?? 'unknown error'}`);
      }
      const told = new Set(recovered.map(place));
      for (const b of superseded) {
        if (!told.has(place(b))) progress(`lost commit not to re-ingest: agent ${b.agent_id} sequence ${b.sequence} (${b.kind}) has a blob but no ledger entry, and ${b.finding}`);
      }
      for (const r of removed) {
        progress(r.removed
          ? `finished an interrupted deletion: removed the blob of agent ${r.agent_id} sequence ${r.sequence} (${r.kind}), deleted at ${r.deleted_at} — its owner asked for that deletion`
          : `could not finish the deletion of agent ${r.agent_id} (deleted at ${r.deleted_at}): its blob at sequence ${r.sequence} (${r.kind}) stays: ${r.error ?? 'unknown error'}`);
      }
      for (const b of leftovers) {
        progress(`left by an interrupted deletion: agent ${b.agent_id}, deleted at ${b.deleted_at}, still has its blob at sequence ${b.sequence} (${b.kind}); it is not brought back${repair ? '' : '. lineage doctor --repair removes it, finishing the deletion its owner asked for'}`);
      }
      const failure = index?.failure ?? null;
      if (failure) {
        progress(`not in the history index: agent ${failure.agent_id} sequence ${failure.sequence} (${failure.kind}), nor what follows it: its catch-up failed at ${failure.at} (${failure.code}: ${failure.error}). `
          + `The entry is stored in the ledger; the dashboard, search and history lack it until it is folded. ${failureHint(failure, config.backend === 'scale-out' ? '' : config.dataDir)}`);
      }
      const blocked = index?.blocked ?? null;
      const firstPending = index?.pending[0];
      if (blocked && firstPending) {
        const n = index!.pending.length;
        progress(`the history index is behind the ledger: ${n} ${n === 1 ? 'entry is' : 'entries are'} not folded (agent ${firstPending.agent_id} sequence ${firstPending.sequence} (${firstPending.kind}) first), `
          + `no catch-up is running, and the disk holding ${config.backend === 'scale-out' ? 'the data directory' : config.dataDir} is full (${blocked.free_bytes} bytes free): nothing can fold ${n === 1 ? 'it' : 'them'} until space is freed (a catch-up that failed for that had no room to record why). `
          + `${n === 1 ? 'The entry is' : 'The entries are'} stored in the ledger; the dashboard, search and history lack ${n === 1 ? 'it' : 'them'} until folded. `
          + failureHint({ code: 'disk_full' }, config.backend === 'scale-out' ? '' : config.dataDir));
      }
      for (const e of index?.pending ?? []) {
        if (blocked) break;
        if (failure && e.agent_id === failure.agent_id && e.sequence === failure.sequence && e.kind === failure.kind) continue;
        progress(`not yet in the history index: agent ${e.agent_id} sequence ${e.sequence} (${e.kind}); a background catch-up or the next read folds it${repair ? '' : ', lineage doctor --repair folds it now'}`);
      }
      const unlinked = index?.unlinkedMoves ?? [];
      if (unlinked.length > 0) {
        const moves = unlinked.reduce((n, e) => n + e.moves, 0);
        const first = unlinked[0]!;
        progress(`the history index was written by an older lineage: ${moves} move(s) or renamed section(s) in ${unlinked.length} ledger entr${unlinked.length === 1 ? 'y' : 'ies'} (the first: agent ${first.agent_id} sequence ${first.sequence}) `
          + `are shown as a delete and a create. Run \`lineage index --rebuild${config.backend === 'scale-out' ? '' : ` --data ${config.dataDir}`}\` once to link them (it re-reads the ledger's blobs; the ledger is not changed).`);
      }
      const ok = damaged.length === 0 && lost.length === 0 && recovered.every((r) => r.recovered || refused.has(place(r))) && leftovers.length === 0 && removed.every((r) => r.removed) && failure === null && blocked === null;
      printJson({
        ok, damaged, unledgered, recovered, leftovers, removed, ...(packing ? { packing } : {}), ...(index ? { index_pending: index.pending } : {}),
        ...(index?.folded === undefined ? {} : { index_folded: index.folded }), ...(failure ? { index_failure: failure } : {}), ...(blocked ? { index_blocked: blocked } : {}),
        ...(unlinked.length > 0 ? { index_unlinked_moves: unlinked } : {}),
      });
      if (!ok) process.exitCode = 1;
    });
}
