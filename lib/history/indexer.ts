/**
 * Folds one ledger entry into the history index. Runs inside the ingest transaction (and inside the
 * rebuild), synchronously: it reads the indexed current state, derives record and raw changes, and
 * writes `record_versions`, `records`, `raw_objects` and `raw_file_versions`.
 */
import type { Drizzle } from '@/db/client';
import type { AlfDelta, AlfSnapshot } from '@/lib/core/archive/types';
import { sha256Hex } from '@/lib/core/uuid';
import { deriveDeltaOps, deriveSnapshotOps } from './derive-ops';
import { rawHeadsFor, liveRawFiles } from './current-state';
import { workspacePath, type DerivedOp } from './index-rows';
import { linkMoves } from './provenance';
import { statements } from './statements';

/** Counts kept on the ledger entry. */
export interface IndexCounts {
  creates: number;
  updates: number;
  deletes: number;
  raw_changed: number;
  raw_deleted: number;
}

/** What to index: the entry's identity, its sync time and the parsed archive. */
export type IndexEntryInput = {
  agentId: string;
  seq: number;
  syncedAt: string;
} & ({ kind: 'delta'; archive: AlfDelta } | { kind: 'snapshot'; archive: AlfSnapshot });

/** Indexes one entry; call inside a transaction. Returns the effective op counts. */
export function indexEntry(db: Drizzle, input: IndexEntryInput): IndexCounts {
  const ops = input.kind === 'delta'
    ? deriveDeltaOps(db, input.agentId, input.archive.entries)
    : deriveSnapshotOps(db, input.agentId, input.archive.records);
  linkMoves(ops);
  writeRecordOps(db, input, ops);
  const raw = input.kind === 'delta'
    ? deltaRaw(db, input.agentId, input.archive)
    : snapshotRaw(db, input.agentId, input.archive);
  writeRaw(db, input, raw);
  return {
    creates: ops.filter((o) => o.op === 'create').length,
    updates: ops.filter((o) => o.op === 'update').length,
    deletes: ops.filter((o) => o.op === 'delete').length,
    raw_changed: raw.changed.length,
    raw_deleted: raw.deleted.length,
  };
}

function writeRecordOps(db: Drizzle, input: IndexEntryInput, ops: DerivedOp[]): void {
  const { agentId, seq, syncedAt, kind } = input;
  const { insertVersion, upsertRecord } = statements(db);
  for (const o of ops) {
    insertVersion.run({ ...o.fields, agent_id: agentId, seq, entry_kind: kind, op: o.op, synced_at: syncedAt, moved_from: o.moved_from });
    upsertRecord.run({
      agent_id: agentId,
      record_id: o.fields.record_id,
      first_seq: o.prev?.first_seq ?? seq,
      last_seq: seq,
      deleted_seq: o.op === 'delete' ? seq : null,
      content: o.fields.content,
      memory_type: o.fields.memory_type,
      namespace: o.fields.namespace,
      status: o.fields.status,
      origin_file: o.fields.origin_file,
      heading: o.fields.heading,
      tags: o.fields.tags,
      record_json: o.fields.record_json,
      born_at: o.prev?.born_at ?? syncedAt,
      last_changed_at: syncedAt,
    });
  }
}

interface RawChanges {
  changed: { path: string; sha256: string; bytes: Uint8Array }[];
  deleted: string[];
}

function deltaRaw(db: Drizzle, agentId: string, delta: AlfDelta): RawChanges {
  const changedPaths = [...delta.rawChanged.keys()].map(workspacePath);
  const deletedPaths = delta.rawDeleted.map(workspacePath);
  const heads = rawHeadsFor(db, agentId, [...changedPaths, ...deletedPaths]);
  const changed: RawChanges['changed'] = [];
  for (const [archivePath, bytes] of delta.rawChanged) {
    const path = workspacePath(archivePath);
    const sha256 = sha256Hex(bytes);
    if (heads.get(path) !== sha256) changed.push({ path, sha256, bytes });
  }
  const deleted = deletedPaths.filter((p) => typeof heads.get(p) === 'string');
  return { changed, deleted };
}

function snapshotRaw(db: Drizzle, agentId: string, snapshot: AlfSnapshot): RawChanges {
  const live = new Map(liveRawFiles(db, agentId, Infinity).map((f) => [f.path, f.sha256]));
  const changed: RawChanges['changed'] = [];
  const seen = new Set<string>();
  for (const [archivePath, bytes] of snapshot.raw) {
    const path = workspacePath(archivePath);
    seen.add(path);
    const sha256 = sha256Hex(bytes);
    if (live.get(path) !== sha256) changed.push({ path, sha256, bytes });
  }
  const deleted = [...live.keys()].filter((p) => !seen.has(p));
  return { changed, deleted };
}

function writeRaw(db: Drizzle, input: IndexEntryInput, raw: RawChanges): void {
  const { agentId, seq, kind } = input;
  const { insertObject, insertRawVersion } = statements(db);
  const written = new Set<string>();
  for (const { path, sha256, bytes } of raw.changed) {
    if (!written.has(sha256)) {
      insertObject.run({ sha256, size: bytes.byteLength, data: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) });
      written.add(sha256);
    }
    insertRawVersion.run({ agent_id: agentId, path, seq, entry_kind: kind, sha256, size: bytes.byteLength, deleted: 0 });
  }
  for (const path of raw.deleted) {
    insertRawVersion.run({ agent_id: agentId, path, seq, entry_kind: kind, sha256: null, size: 0, deleted: 1 });
  }
}
