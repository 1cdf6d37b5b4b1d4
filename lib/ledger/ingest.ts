/**
 * Atomic, crash-safe ingest (DESIGN.md "Embedded default"): parse and check the archive completely,
 * precheck the sequence, write the blob (temp + fsync + rename), then ONE synchronous transaction that
 * re-checks the sequence (the authoritative compare-and-set), appends the ledger entry, moves the
 * agent forward and indexes the entry. A crash leaves at most a blob without an entry; a commit
 * known to have failed takes its blob away again (blob-claims.ts).
 *
 * The ledger knows no index: the caller hands in an `EntryIndexer` (the composition root,
 * lib/storage/embedded-ingest.ts, wires the history indexer), which runs inside that transaction —
 * or, for an entry of at least `deferIndexFrom` records, lines and files (a local sync of a large
 * change), only marks it pending there, its fold left to a catch-up (lib/history/pending-index.ts).
 * Either way the agent's pending entries are folded before its index is read or extended.
 */
import type { Statement } from 'better-sqlite3';
import type { Drizzle } from '@/db/client';
import type { AgentRow, EntryKind, LedgerEntryRow } from '@/db/schema';
import { deltaManifestName, readDelta, readSnapshot, scanSnapshot } from '@/lib/core/archive';
import type { AlfDelta, AlfSnapshot, ArchiveLimits } from '@/lib/core/archive/types';
import { writtenWithin, type WrittenDelta } from '@/lib/core/archive/write-delta';
import type { WrittenSnapshot } from '@/lib/core/archive/write-snapshot';
import { resolveLimits } from '@/lib/core/archive/zip-read';
import { NS } from '@/lib/core/ids';
import { isJsonObject, type JsonObject } from '@/lib/core/json';
import { sha256Hex, uuidV5 } from '@/lib/core/uuid';
import { ArchiveKeys, checkDeltaServable, checkSnapshotParts, checkSnapshotRecord, checkSnapshotServable } from './ingest-checks';
import { requireAgent } from './agents';
import type { RecordChecks } from './record-checks';
import { LedgerError } from './errors';
import { blobKey, checkAgentId, parseArchive } from './ingest-shared';
import { baseTimestampOf, checkBuiltOnHead, headCreatedAt, manifestCreatedAt as manifestCreatedAtOf, supersededBase } from './ingest-base';
import { readEntryBytesFrom } from './entries';
import { withStoredBlob } from './blob-claims';
import { commitGrouped } from './group-commit';
import { rebuildInProgress } from './rebuild-marker';
import { mapStorageErrors } from './storage-errors';
import type { Ledger } from './ledger';
import type { EntryCounts } from './pg-append';
import { echoInput } from '@/lib/core/echo';

/** What an accepted upload became. */
export interface IngestResult {
  id: string;
  sequence: number;
  blobKey: string;
  sizeBytes: number;
  /** True when the entry was appended without its fold into the index (`deferIndexFrom`): a catch-up folds it. */
  indexDeferred?: boolean;
}

/** One entry to index: its identity, its sync time and the parsed archive. */
export type IndexedEntry = { agentId: string; seq: number; syncedAt: string }
  & ({ kind: 'delta'; archive: AlfDelta } | { kind: 'snapshot'; archive: AlfSnapshot });

/** What ingest needs of the index: the entry indexed inside the append's transaction, and the live paths a delta is checked against. */
export interface EntryIndexer {
  /** Synchronous: it runs inside the one SQLite transaction that appends the entry. */
  index(db: Drizzle, entry: IndexedEntry): EntryCounts;
  livePaths(db: Drizzle, agentId: string, seq: number): string[];
  /** Whether the live tree at `seq` came whole through the ingest checks and holds every one of `paths` (the tree is then not read). */
  checkedTreeHolds?(db: Drizzle, agentId: string, seq: number, paths: readonly string[]): boolean;
  /**
   * Entries appended without their fold (`deferIndexFrom`): whether `agentId` has any, folding them
   * (in ledger order, before anything reads or extends the agent's index), and recording one inside
   * the append's transaction. An indexer without them indexes every entry at once.
   */
  pending?: {
    has(ledger: Ledger, agentId: string): boolean;
    catchUp(ledger: Ledger, agentId: string): Promise<unknown>;
    mark(ledger: Ledger, entry: { agentId: string; seq: number; kind: EntryKind }): void;
  };
}

interface IngestBase {
  ledger: Ledger;
  indexer: EntryIndexer;
  agentId: string;
  bytes: Uint8Array;
  now: Date;
  limits?: Partial<ArchiveLimits>;
  tenantId?: string | null;
  /**
   * Append the entry without folding it into the index when it holds at least this many records,
   * delta lines and raw files (a local sync of a large change: the fold runs in the background,
   * pending-index.ts); absent, every entry is indexed in its append's transaction.
   */
  deferIndexFrom?: number;
}

/** The statements of the ingest transaction, prepared once per database handle (the hot path). */
function ingestStatements(ledger: Ledger) {
  let prepared = statementCache.get(ledger.db.sqlite);
  if (!prepared) {
    const { sqlite } = ledger.db;
    prepared = {
      hasEntry: sqlite.prepare('SELECT 1 FROM ledger_entries WHERE agent_id = ? AND seq = ? AND kind = ?').pluck(),
      agent: sqlite.prepare('SELECT * FROM agents WHERE id = ?'),
      insertEntry: sqlite.prepare(`INSERT INTO ledger_entries
        (id, agent_id, seq, kind, blob_key, sha256, size_bytes, created_at, creates, updates, deletes, moves, raw_changed, raw_deleted, manifest_created_at)
        VALUES (@id, @agent_id, @seq, @kind, @blob_key, @sha256, @size_bytes, @created_at, @creates, @updates, @deletes, @moves, @raw_changed, @raw_deleted, @manifest_created_at)`),
      fillManifestCreatedAt: sqlite.prepare('UPDATE ledger_entries SET manifest_created_at = ? WHERE id = ? AND manifest_created_at IS NULL'),
      moveDelta: sqlite.prepare('UPDATE agents SET latest_sequence = ? WHERE id = ?'),
      moveSnapshot: sqlite.prepare('UPDATE agents SET latest_sequence = ?, latest_snapshot_seq = ? WHERE id = ?'),
      entryAt: sqlite.prepare('SELECT * FROM ledger_entries WHERE agent_id = ? AND seq = ? AND kind = ?'),
    };
    statementCache.set(ledger.db.sqlite, prepared);
  }
  return prepared;
}
const statementCache = new WeakMap<object, {
  hasEntry: Statement; agent: Statement; insertEntry: Statement; fillManifestCreatedAt: Statement; moveDelta: Statement; moveSnapshot: Statement; entryAt: Statement;
}>();

function hasEntry(ledger: Ledger, agentId: string, seq: number, kind: EntryKind): boolean {
  return ingestStatements(ledger).hasEntry.get(agentId, seq, kind) !== undefined;
}

/**
 * Where a snapshot goes: 0 on the first sync; else the current latest (a non-destructive rollover),
 * or latest + 1 when a snapshot already sits at latest (a ledger blob is never rewritten).
 */
function snapshotSequence(ledger: Ledger, agent: AgentRow): number {
  if (agent.latest_sequence === null) return 0;
  return hasEntry(ledger, agent.id, agent.latest_sequence, 'snapshot') ? agent.latest_sequence + 1 : agent.latest_sequence;
}

/**
 * A rebuild of the index holds the database's write lock for its whole run: in this process (a
 * transaction is open) or in another (`lineage index --rebuild` leaves its marker). Uploads are then
 * refused at once with `busy` (503 + Retry-After) instead of waiting on the lock.
 */
function assertNotRebuilding(ledger: Ledger): void {
  if (ledger.db.sqlite.inTransaction) {
    throw new LedgerError('busy', 'the history index is being rebuilt in this process; retry when it finishes');
  }
  const rebuilding = rebuildInProgress(ledger.db.dataDir);
  if (rebuilding) throw new LedgerError('busy', `the history index is being rebuilt (${rebuilding}); retry when it finishes`);
}


/**
 * Appends the entry and indexes it in one transaction (grouped with concurrent uploads, each in its
 * own savepoint: group-commit.ts); `expect` re-checks the sequence inside it.
 */
async function commit(params: IngestBase & {
  kind: EntryKind; seq: number; key: string; sha: string; expect: (agent: AgentRow) => void;
  /** The archive to index now, or null: its fold is deferred (`deferIndexFrom`). */
  archive: { kind: 'delta'; archive: AlfDelta } | { kind: 'snapshot'; archive: AlfSnapshot } | null;
  /** The archive's manifest `created_at` (ingest-base.ts `manifestCreatedAt`), written on the entry's row. */
  manifestCreatedAt: string | null;
  /** The base entry's `manifest_created_at`, read from its blob because its row had none (appended before the column): written on its row here. */
  fill?: { entryId: string; createdAt: string };
}): Promise<IngestResult> {
  const { ledger, agentId, seq, kind, key, sha, bytes, now } = params;
  const { db, sqlite } = ledger.db;
  assertNotRebuilding(ledger);
  const id = uuidV5(NS.alf, `ledger-entry:${agentId}:${seq}:${kind}:${sha}`);
  const syncedAt = now.toISOString();
  const statements = ingestStatements(ledger);
  await mapStorageErrors(ledger.db.dataDir, () => commitGrouped(sqlite, () => {
    const agent = statements.agent.get(agentId) as AgentRow | undefined;
    if (!agent) throw new LedgerError('agent_not_found', `agent ${echoInput(agentId)} not found`);
    params.expect(agent);
    const { pending } = params.indexer;
    let counts: EntryCounts = NO_COUNTS;
    if (params.archive === null) pending!.mark(ledger, { agentId, seq, kind });
    else {
      // Caught up before the checks; an entry appended since would have moved the sequence `expect` checked.
      if (pending?.has(ledger, agentId)) throw new LedgerError('busy', `the history index of agent ${echoInput(agentId)} is catching up; retry shortly`);
      counts = params.indexer.index(db, { agentId, seq, syncedAt, ...params.archive });
    }
    statements.insertEntry.run({
      id, agent_id: agentId, seq, kind, blob_key: key, sha256: sha, size_bytes: bytes.byteLength, created_at: syncedAt, ...counts,
      manifest_created_at: params.manifestCreatedAt,
    });
    if (params.fill) statements.fillManifestCreatedAt.run(params.fill.createdAt, params.fill.entryId);
    if (kind === 'snapshot') statements.moveSnapshot.run(seq, seq, agentId);
    else statements.moveDelta.run(seq, agentId);
  }));
  return { id, sequence: seq, blobKey: key, sizeBytes: bytes.byteLength, ...(params.archive === null ? { indexDeferred: true } : {}) };
}

/** A deferred entry's counts until its fold writes them. */
const NO_COUNTS: EntryCounts = { creates: 0, updates: 0, deletes: 0, moves: 0, raw_changed: 0, raw_deleted: 0 };

/** What decides whether a delta's fold is deferred: its lines and raw files. */
const sizeOf = (delta: AlfDelta) => delta.entries.length + delta.rawChanged.size + delta.rawDeleted.length;

/** Whether this entry's fold is left to a catch-up: asked for, possible, and the entry large enough. */
function deferred(params: IngestBase, size: number): boolean {
  return params.deferIndexFrom !== undefined && params.indexer.pending !== undefined && size >= params.deferIndexFrom;
}

/** Folds the agent's pending entries (in ledger order) before the index is read or extended. */
async function catchUp(params: IngestBase, agentId: string): Promise<void> {
  const { pending } = params.indexer;
  if (pending?.has(params.ledger, agentId)) await mapStorageErrors(params.ledger.db.dataDir, () => pending.catchUp(params.ledger, agentId));
}

/**
 * A snapshot upload read and checked; null when its fold is deferred. When it may be (a local
 * sync's), its records are checked as they are read, and kept only while they are too few for the
 * fold to be deferred (a fold later reads the blob): the same checks in the same order, so the same
 * first refusal, without holding every record of a large snapshot parsed at once.
 */
async function checkedSnapshot(params: IngestBase & { written?: WrittenSnapshot; checked?: RecordChecks }, agentId: string): Promise<{ snapshot: AlfSnapshot | null; manifest: JsonObject }> {
  const deferFrom = params.indexer.pending !== undefined ? params.deferIndexFrom : undefined;
  const { written, checked } = params;
  if (written && deferred(params, written.records.length + written.parts.raw.size) && writtenWithin(written, resolveLimits(params.limits))) {
    // The checks a read of the bytes makes, in its order, on the snapshot as written (its fold,
    // deferred, reads the blob). A record's index is the one a reader meets it at. Records checked
    // as their lines were made (record-checks.ts) are not walked again: their verdict is taken.
    checkAgentId(written.parts.manifest, agentId, 'manifest.json');
    checkSnapshotParts(written.parts, checked?.covers(written.source)
      ? () => checked.verdict(written.records)
      : () => written.records.forEach((record, index) => checkSnapshotRecord(record, index)));
    return { snapshot: null, manifest: written.parts.manifest };
  }
  const keys = new ArchiveKeys('snapshot');
  if (deferFrom === undefined) {
    const snapshot = await parseArchive(() => readSnapshot(params.bytes, params.limits, keys.hooks));
    checkAgentId(snapshot.manifest, agentId, 'manifest.json');
    checkSnapshotServable(snapshot, keys);
    return { snapshot, manifest: snapshot.manifest };
  }
  let refused: { error: unknown } | null = null;
  // Kept while fewer than `deferFrom`: a snapshot whose fold is not deferred has fewer records than that.
  let kept: AlfSnapshot['records'] | null = [];
  const { recordCount, ...parts } = await parseArchive(() => scanSnapshot(params.bytes, params.limits, (record, index, line) => {
    if (kept !== null && kept.length < deferFrom) kept.push(record);
    else kept = null;
    if (refused !== null) return;
    try {
      checkSnapshotRecord(record, index, line);
    } catch (error) {
      refused = { error };
    }
  }, keys.hooks));
  checkAgentId(parts.manifest, agentId, 'manifest.json');
  checkSnapshotParts(parts, () => {
    if (refused !== null) throw refused.error;
  }, keys);
  if (deferred(params, recordCount + parts.raw.size)) return { snapshot: null, manifest: parts.manifest };
  return { snapshot: { ...parts, records: kept! }, manifest: parts.manifest };
}

/** Stores a full `.alf` snapshot (first sync at 0, rollover at latest). */
export async function ingestSnapshot(params: IngestBase & {
  /**
   * The snapshot as the bytes hold it, when they were written in this process (a local sync's
   * first snapshot: write-snapshot.ts `writeSnapshotRead`). When its fold is deferred and a reader
   * with these limits reads it, its checks run on this instead of on the bytes read back (the
   * fold reads the blob); otherwise the bytes are read, as any upload's.
   */
  written?: WrittenSnapshot;
  /**
   * The ingest's checks of `written`'s records, made as their lines were (record-checks.ts): taken
   * instead of checking them again when they cover the very records written; ignored otherwise.
   */
  checked?: RecordChecks;
}): Promise<IngestResult> {
  const agent = requireAgent({ ledger: params.ledger, agentId: params.agentId, tenantId: params.tenantId });
  const { snapshot, manifest } = await checkedSnapshot(params, agent.id);
  const manifestCreatedAt = manifestCreatedAtOf(manifest);
  const sha = sha256Hex(params.bytes);
  // A concurrent ingest may move the target between the blob write and the transaction: retry.
  for (let attempt = 0; ; attempt++) {
    await catchUp(params, agent.id);
    const current = requireAgent({ ledger: params.ledger, agentId: agent.id });
    const seq = snapshotSequence(params.ledger, current);
    const key = blobKey(agent.id, seq, 'snapshot', sha);
    try {
      return await withStoredBlob(params.ledger, key, params.bytes, () => commit({
        ...params, agentId: agent.id, kind: 'snapshot', seq, key, sha, archive: snapshot && { kind: 'snapshot', archive: snapshot }, manifestCreatedAt,
        expect: (now) => {
          if (snapshotSequence(params.ledger, now) !== seq) {
            throw new LedgerError('stale_sequence', `agent ${agent.id} moved to sequence ${now.latest_sequence} during the upload`, { latest: now.latest_sequence });
          }
        },
      }));
    } catch (error) {
      if (!(error instanceof LedgerError && error.code === 'stale_sequence') || attempt >= 4) throw error;
    }
  }
}

function checkBase(agent: AgentRow, baseSequence: number): void {
  if (agent.latest_sequence === null || agent.latest_snapshot_seq === null) {
    throw new LedgerError('no_snapshot', `agent ${agent.id} has no snapshot yet: upload a full snapshot first`);
  }
  if (baseSequence !== agent.latest_sequence) {
    throw new LedgerError('stale_sequence',
      `base sequence ${baseSequence} is not the agent's latest sequence ${agent.latest_sequence}`, { latest: agent.latest_sequence });
  }
}

/**
 * The delta must have been built on the entry at `baseSequence`, whatever its kind (ingest-base.ts
 * `checkBuiltOnHead`: its `base_timestamp` no older than that entry's `created_at`): the snapshot
 * there when the head is one (another machine's `--force-first-sync`, a rollover, a first sync),
 * else the delta there (a history that went on from a backup and reached this sequence again).
 * That `created_at` is the entry row's `manifest_created_at`; only an entry appended before that
 * column has its blob read, and the value read is returned for the append to write on its row.
 */
async function checkHeadAtBase(params: IngestBase, head: AgentRow, baseSequence: number, delta: AlfDelta, manifestFile: string):
Promise<{ entryId: string; createdAt: string } | undefined> {
  if (baseTimestampOf(delta.manifest) === undefined) return undefined;
  const { ledger } = params;
  const kind = head.latest_snapshot_seq === baseSequence ? 'snapshot' : 'delta';
  const entry = ingestStatements(ledger).entryAt.get(head.id, baseSequence, kind) as LedgerEntryRow | undefined;
  if (!entry) return undefined;
  const { createdAt, fill } = await headCreatedAt(entry, () => readEntryBytesFrom(ledger.blobs, entry), params.limits);
  checkBuiltOnHead({ agentId: head.id, baseSequence, manifestFile, manifest: delta.manifest, createdAt, head: kind });
  return fill;
}

/** Appends a `.alf-delta` at latest + 1, accepted only if `baseSequence` equals the latest sequence. */
export async function ingestDelta(params: IngestBase & {
  baseSequence: number;
  /**
   * The delta as the bytes hold it, when they were written in this process (a local sync's
   * upload: write-delta.ts `writeDeltaRead`). When its fold is deferred and a reader with these
   * limits reads it, its checks run on this instead of on the bytes read back (the fold reads the
   * blob); otherwise the bytes are read, as any upload's.
   */
  written?: WrittenDelta;
}): Promise<IngestResult> {
  const { baseSequence } = params;
  if (!Number.isSafeInteger(baseSequence) || baseSequence < 0) {
    throw new LedgerError('invalid_input', `base_sequence must be a non-negative integer, got ${String(baseSequence)}`);
  }
  const agent = requireAgent({ ledger: params.ledger, agentId: params.agentId, tenantId: params.tenantId });
  const { written } = params;
  // A delta written in this process is not looked at for duplicated keys: its writer made none.
  const keys = new ArchiveKeys('delta');
  const delta = written && deferred(params, sizeOf(written.delta)) && writtenWithin(written, resolveLimits(params.limits))
    ? written.delta
    : await parseArchive(() => readDelta(params.bytes, params.limits, keys.hooks));
  const manifestFile = deltaManifestName(delta);
  checkAgentId(delta.manifest, agent.id, manifestFile);
  const sync = isJsonObject(delta.manifest.sync) ? delta.manifest.sync : {};
  if (sync.base_sequence !== baseSequence) {
    throw new LedgerError('base_mismatch',
      `${manifestFile} sync.base_sequence ${JSON.stringify(sync.base_sequence ?? null)} does not match base_sequence ${baseSequence}`);
  }
  const head = requireAgent({ ledger: params.ledger, agentId: agent.id });
  checkBase(head, baseSequence);
  const fill = await checkHeadAtBase(params, head, baseSequence, delta, manifestFile);
  // The checks below read the stored tree at the base from the index.
  await catchUp(params, agent.id);
  const { indexer } = params;
  const db = params.ledger.db.db;
  checkDeltaServable(delta, () => indexer.livePaths(db, agent.id, baseSequence),
    indexer.checkedTreeHolds && ((paths) => indexer.checkedTreeHolds!(db, agent.id, baseSequence, paths)), keys);
  const seq = baseSequence + 1;
  const sha = sha256Hex(params.bytes);
  const key = blobKey(agent.id, seq, 'delta', sha);
  return withStoredBlob(params.ledger, key, params.bytes, () => commit({
    ...params, agentId: agent.id, kind: 'delta', seq, key, sha, archive: deferred(params, sizeOf(delta)) ? null : { kind: 'delta', archive: delta },
    manifestCreatedAt: manifestCreatedAtOf(delta.manifest), ...(fill ? { fill } : {}),
    expect: (current) => {
      checkBase(current, baseSequence);
      // A snapshot stored at the base sequence since the check above: this delta was built before it.
      if (current.latest_snapshot_seq !== head.latest_snapshot_seq) throw supersededBase({ agentId: agent.id, baseSequence, manifestFile });
    },
  }));
}
