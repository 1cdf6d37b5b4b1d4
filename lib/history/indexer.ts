/**
 * Folds one ledger entry into the history index. Runs inside the ingest transaction (and inside the
 * rebuild), synchronously: it reads the indexed current state, derives record and raw changes, and
 * writes `record_versions`, `records`, `raw_objects` and `raw_file_versions`.
 *
 * The fold itself (`foldEntry`) is written once against an `IndexTarget`: ingest folds into the
 * database (`dbTarget`, current state read with indexed queries), the rebuild into an in-memory
 * mirror of the current state that writes the same rows (rebuild-target.ts) — so both produce
 * the same index by construction.
 */
import type { Drizzle } from '@/db/client';
import type { AlfDelta, AlfSnapshot } from '@/lib/core/archive/types';
import { deriveDeltaOps, deriveSnapshotOps } from './derive-ops';
import { liveRawFiles, liveRecordRows, rawHeadsFor, recordRowsById } from './current-state';
import { currentFields, type CurrentRecord, type DerivedOp, type RecordFields } from './index-rows';
import { prepareArchive, type PreparedEntry, type PreparedRawFile } from './ledger-blob';
import { liveFacetDelta, type FacetCount } from './live-facets';
import { linkMoves } from './provenance';
import { indexRecordFiles } from './record-files-index';
import { statements } from './statements';

/** Counts kept on the ledger entry. */
export interface IndexCounts {
  creates: number;
  updates: number;
  deletes: number;
  /** Moves, counted once each (their halves are in neither `creates` nor `deletes`). */
  moves: number;
  raw_changed: number;
  raw_deleted: number;
}

/** What to index: the entry's identity, its sync time and the parsed archive. */
export type IndexEntryInput = {
  agentId: string;
  seq: number;
  syncedAt: string;
} & ({ kind: 'delta'; archive: AlfDelta } | { kind: 'snapshot'; archive: AlfSnapshot });

/** The columns of a `record_versions` row besides the record's fields. */
export interface VersionMeta {
  agent_id: string;
  seq: number;
  entry_kind: 'delta' | 'snapshot';
  op: DerivedOp['op'];
  synced_at: string;
  moved_from: string | null;
}

/** One `raw_file_versions` row. */
export interface RawVersionRow {
  agent_id: string;
  path: string;
  seq: number;
  entry_kind: 'delta' | 'snapshot';
  sha256: string | null;
  size: number;
  deleted: 0 | 1;
  /** 1: rendered from the records of a record-only delta (record-files-index.ts), not raw bytes. */
  reconstructed?: 1 | null;
}

/** The current state the fold reads, and the rows it writes, for one agent. */
export interface IndexTarget {
  /** Current state (live or deleted) of the given record ids. */
  recordRows(ids: readonly string[]): Map<string, CurrentRecord>;
  /** Live records in birth order, then id. */
  liveRecords(): CurrentRecord[];
  /** Latest version per given path: sha, null when deleted, absent when never seen. */
  rawHeads(paths: readonly string[]): Map<string, string | null>;
  /** Every live path with its sha (path order). */
  liveRaw(): Map<string, string>;
  /** Fields of an indexed record (its tombstone when deleted): `currentFields(row)` or the same, remembered. */
  tombstoneFields(row: CurrentRecord): RecordFields;
  insertVersion(fields: RecordFields, meta: VersionMeta): void;
  /**
   * Inserts or replaces the `records` row of `row.record_id` (its `record_json` is that of the
   * version just inserted); `fields` are that version's fields.
   */
  putRecord(row: CurrentRecord, fields: RecordFields): void;
  /** Stores a raw object (no-op when that sha is already stored; `bytes` null only then). */
  putObject(sha256: string, bytes: Uint8Array | null): void;
  insertRawVersion(row: RawVersionRow): void;
  /**
   * Changes the agent's live-facet counters (`record_facets`) by `delta` (live-facets.ts; never empty), and
   * adds it to sequence `seq`'s changes of them (`record_facet_changes`; a change summing to 0 left out).
   */
  addFacetCounts(delta: readonly FacetCount[], seq: number): void;
}

/** Indexes one entry into the database; call inside a transaction. Returns the effective op counts. */
export function indexEntry(db: Drizzle, input: IndexEntryInput): IndexCounts {
  return foldEntry(dbTarget(db, input.agentId), { agentId: input.agentId, seq: input.seq, syncedAt: input.syncedAt }, prepareArchive(input));
}

/** The fold of one prepared entry into `target`. */
export function foldEntry(target: IndexTarget, at: { agentId: string; seq: number; syncedAt: string }, entry: PreparedEntry): IndexCounts {
  const ops = entry.kind === 'delta'
    ? deriveDeltaOps(entry.lines, target.recordRows(entry.lines.map((l) => l.fields.record_id)), (row) => target.tombstoneFields(row))
    : snapshotOps(target, entry.records);
  linkMoves(ops);
  writeRecordOps(target, at, entry.kind, ops);
  const facets = liveFacetDelta(ops, (row) => target.tombstoneFields(row));
  if (facets.length > 0) target.addFacetCounts(facets, at.seq);
  const raw = entry.kind === 'delta' ? deltaRaw(target, entry.rawChanged, entry.rawDeleted) : snapshotRaw(target, entry.raw);
  writeRaw(target, at, entry.kind, raw);
  if (entry.kind === 'delta') indexRecordFiles(target, at, ops, entry);
  let creates = 0;
  let updates = 0;
  let deletes = 0;
  let moves = 0;
  for (const o of ops) {
    if (o.op === 'create') creates++;
    else if (o.op === 'update') updates++;
    else if (o.op === 'move') moves++;
    else if (o.moved_to === undefined) deletes++;
  }
  return { creates, updates, deletes, moves, raw_changed: raw.changed.length, raw_deleted: raw.deleted.length };
}

function snapshotOps(target: IndexTarget, records: RecordFields[]): DerivedOp[] {
  const live = target.liveRecords();
  const liveIds = new Set(live.map((r) => r.record_id));
  const deleted = target.recordRows(records.map((r) => r.record_id).filter((id) => !liveIds.has(id)));
  return deriveSnapshotOps(records, live, deleted, (row) => target.tombstoneFields(row));
}

function writeRecordOps(target: IndexTarget, at: { agentId: string; seq: number; syncedAt: string }, kind: PreparedEntry['kind'], ops: DerivedOp[]): void {
  const { agentId, seq, syncedAt } = at;
  for (const o of ops) {
    // A record moved away ends without a version of its own: the move is its successor's row.
    if (o.moved_to === undefined) {
      target.insertVersion(o.fields, { agent_id: agentId, seq, entry_kind: kind, op: o.op, synced_at: syncedAt, moved_from: o.moved_from });
    }
    target.putRecord({
      agent_id: agentId,
      record_id: o.fields.record_id,
      first_seq: o.prev?.first_seq ?? seq,
      last_seq: seq,
      deleted_seq: o.op === 'delete' ? seq : null,
      born_at: o.prev?.born_at ?? syncedAt,
      last_changed_at: syncedAt,
      record_json: o.fields.record_json,
    }, o.fields);
  }
}

interface RawChanges {
  changed: PreparedRawFile[];
  deleted: string[];
}

function deltaRaw(target: IndexTarget, rawChanged: PreparedRawFile[], rawDeleted: string[]): RawChanges {
  const heads = target.rawHeads([...rawChanged.map((f) => f.path), ...rawDeleted]);
  const changed = rawChanged.filter((f) => heads.get(f.path) !== f.sha256);
  const deleted = rawDeleted.filter((p) => typeof heads.get(p) === 'string');
  return { changed, deleted };
}

function snapshotRaw(target: IndexTarget, raw: PreparedRawFile[]): RawChanges {
  const live = target.liveRaw();
  const seen = new Set<string>();
  const changed: PreparedRawFile[] = [];
  for (const f of raw) {
    seen.add(f.path);
    if (live.get(f.path) !== f.sha256) changed.push(f);
  }
  const deleted = [...live.keys()].filter((p) => !seen.has(p));
  return { changed, deleted };
}

function writeRaw(target: IndexTarget, at: { agentId: string; seq: number }, kind: PreparedEntry['kind'], raw: RawChanges): void {
  const { agentId, seq } = at;
  for (const { path, sha256, size, bytes } of raw.changed) {
    target.putObject(sha256, bytes);
    target.insertRawVersion({ agent_id: agentId, path, seq, entry_kind: kind, sha256, size, deleted: 0 });
  }
  for (const path of raw.deleted) {
    target.insertRawVersion({ agent_id: agentId, path, seq, entry_kind: kind, sha256: null, size: 0, deleted: 1 });
  }
}

/** The database as the fold's target (the incremental path, inside the ingest transaction). */
export function dbTarget(db: Drizzle, agentId: string): IndexTarget {
  const s = statements(db);
  return {
    recordRows: (ids) => recordRowsById(db, agentId, ids),
    liveRecords: () => liveRecordRows(db, agentId),
    rawHeads: (paths) => rawHeadsFor(db, agentId, paths),
    liveRaw: () => new Map(liveRawFiles(db, agentId, Infinity).map((f) => [f.path, f.sha256])),
    tombstoneFields: currentFields,
    insertVersion: (fields, meta) => s.insertVersion.run({ ...fields, ...meta }),
    putRecord: (row) => s.upsertRecord.run(row),
    putObject: (sha256, bytes) => {
      if (!bytes) throw new Error(`raw object ${sha256} came without its bytes`);
      s.insertObject.run({ sha256, size: bytes.byteLength, data: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) });
    },
    insertRawVersion: (row) => s.insertRawVersion.run(row as unknown as Record<string, unknown>),
    addFacetCounts: (delta, seq) => {
      for (const c of delta) {
        const row = { agent_id: agentId, ...c };
        s.addFacetCount.run(row);
        if (c.count < 0) s.dropEmptyFacet.run(row);
        // Another entry of the same sequence may have changed it the other way (a rollover snapshot's).
        const change = { agent_id: agentId, seq, facet: c.facet, value: c.value, change: c.count };
        s.addFacetChange.run(change);
        s.dropEmptyFacetChange.run(change);
      }
    },
  };
}
