/**
 * Ingest on the scale-out backend, with the embedded ingest's rules and answers (lib/ledger/ingest.ts):
 * the archive is parsed and checked completely first, then ONE PostgreSQL transaction locks the
 * agent's row, re-checks the sequence (`appendLedgerEntry`), writes the blob once to the bucket (S3
 * `If-None-Match: *`: a retry with the same bytes is a success), folds the entry into the history
 * index with the same `foldEntry` as SQLite, and writes the entry with its counts. The blob is in
 * the bucket before the entry commits (never an entry without its blob); an upload that loses the
 * sequence race writes no blob at all, so no blob is ever deleted here. A process that dies between
 * the blob write and the commit leaves one blob continuing the agent's ledger, never acknowledged:
 * `lineage doctor` lists it (lib/storage/consistency.ts).
 */
import type { PgLineageDb } from '@/db/pg/client';
import { deltaManifestName, readDelta, readSnapshot } from '@/lib/core/archive';
import type { AlfDelta, AlfSnapshot } from '@/lib/core/archive/types';
import { NS } from '@/lib/core/ids';
import { isJsonObject } from '@/lib/core/json';
import { sha256Hex, uuidV5 } from '@/lib/core/uuid';
import { foldEntry, type IndexCounts } from '@/lib/history/indexer';
import { prepareArchive } from '@/lib/history/ledger-blob';
import type { BlobStore } from '@/lib/ledger/blob-store';
import { LedgerError } from '@/lib/ledger/errors';
import type { IngestResult } from '@/lib/ledger/ingest';
import { ArchiveKeys, checkDeltaServable, checkSnapshotServable } from '@/lib/ledger/ingest-checks';
import { blobKey, checkAgentId, parseArchive } from '@/lib/ledger/ingest-shared';
import { baseTimestampOf, checkBuiltOnHead, headCreatedAt, manifestCreatedAt, supersededBase } from '@/lib/ledger/ingest-base';
import { readEntryBytesFrom } from '@/lib/ledger/entries';
import type { PgAgentRow } from '@/db/pg/schema';
import { appendLedgerEntry, nextSnapshotSequence, type AppendPlace } from '@/lib/ledger/pg-append';
import type { IngestParams } from '../types';
import { listEntries, requireAgent } from './agents';
import { PgFoldTarget } from './fold-target';
import { ANALYZE_AFTER_VERSIONS, refreshIndexStatistics } from './statistics';
import { liveRawFiles } from './workspace';

export interface PgBackend {
  db: PgLineageDb;
  blobs: BlobStore;
}

/** Appends and indexes the entry in one transaction, writing the blob under the agent's lock once the sequence check passed. */
async function store(backend: PgBackend, params: {
  agentId: string; seq: number; place: AppendPlace; bytes: Uint8Array; now: Date;
  archive: { kind: 'delta'; archive: AlfDelta } | { kind: 'snapshot'; archive: AlfSnapshot };
  /** Checked under the agent's lock before anything is written (a delta: that no snapshot was stored at its base since its checks). */
  expect?: (agent: PgAgentRow) => void;
  /** The base entry's `manifest_created_at`, read from its blob because its row had none (appended before the column): written on its row in this transaction. */
  fill?: { entryId: string; createdAt: string };
}): Promise<IngestResult> {
  const { agentId, seq, place, bytes } = params;
  const sha = sha256Hex(bytes);
  const key = blobKey(agentId, seq, place.kind, sha);
  const id = uuidV5(NS.alf, `ledger-entry:${agentId}:${seq}:${place.kind}:${sha}`);
  const syncedAt = params.now.toISOString();
  const prepared = prepareArchive(params.archive);
  const entry = await appendLedgerEntry({
    db: backend.db, agentId, ...place,
    entry: { id, blobKey: key, sha256: sha, sizeBytes: bytes.byteLength, createdAt: syncedAt, manifestCreatedAt: manifestCreatedAt(params.archive.archive.manifest) },
    inTransaction: async (client, at, locked) => {
      params.expect?.(locked);
      const { fill } = params;
      if (fill) await client.query('UPDATE ledger_entries SET manifest_created_at = $1 WHERE id = $2 AND manifest_created_at IS NULL', [fill.createdAt, fill.entryId]);
      // Written once the sequence check passed under the agent's lock, before the commit: a lost
      // race writes nothing to the bucket's final keys (lost-race-blobs.test.ts).
      await backend.blobs.put(key, bytes);
      const { target, result } = await PgFoldTarget.fold(client, agentId, prepared, (t) => foldEntry(t, { agentId, seq: at, syncedAt }, prepared));
      await target.flush(client);
      return result satisfies IndexCounts;
    },
  });
  if (entry.creates + entry.updates + entry.deletes + entry.moves >= ANALYZE_AFTER_VERSIONS) await refreshIndexStatistics(backend.db.pool);
  return { id, sequence: seq, blobKey: key, sizeBytes: bytes.byteLength };
}

export async function ingestSnapshot(backend: PgBackend, params: IngestParams): Promise<IngestResult> {
  const pool = backend.db.pool;
  const agent = await requireAgent(pool, params);
  const keys = new ArchiveKeys('snapshot');
  const snapshot = await parseArchive(() => readSnapshot(params.bytes, params.limits, keys.hooks));
  checkAgentId(snapshot.manifest, agent.id, 'manifest.json');
  checkSnapshotServable(snapshot, keys);
  // A concurrent ingest may move the target between choosing the sequence and the transaction: retry.
  for (let attempt = 0; ; attempt++) {
    const seq = await nextSnapshotSequence({ db: backend.db, agentId: agent.id });
    try {
      return await store(backend, {
        agentId: agent.id, seq, place: { kind: 'snapshot', sequence: seq }, bytes: params.bytes, now: params.now,
        archive: { kind: 'snapshot', archive: snapshot },
      });
    } catch (error) {
      if (!(error instanceof LedgerError && error.code === 'stale_sequence') || attempt >= 4) throw error;
    }
  }
}

export async function ingestDelta(backend: PgBackend, params: IngestParams & { baseSequence: number }): Promise<IngestResult> {
  const { baseSequence } = params;
  if (!Number.isSafeInteger(baseSequence) || baseSequence < 0) {
    throw new LedgerError('invalid_input', `base_sequence must be a non-negative integer, got ${String(baseSequence)}`);
  }
  const pool = backend.db.pool;
  const agent = await requireAgent(pool, params);
  const keys = new ArchiveKeys('delta');
  const delta = await parseArchive(() => readDelta(params.bytes, params.limits, keys.hooks));
  const manifestFile = deltaManifestName(delta);
  checkAgentId(delta.manifest, agent.id, manifestFile);
  const sync = isJsonObject(delta.manifest.sync) ? delta.manifest.sync : {};
  if (sync.base_sequence !== baseSequence) {
    throw new LedgerError('base_mismatch',
      `${manifestFile} sync.base_sequence ${JSON.stringify(sync.base_sequence ?? null)} does not match base_sequence ${baseSequence}`);
  }
  // The precheck (the append checks again under the agent's lock).
  if (agent.latest_sequence === null || agent.latest_snapshot_seq === null) {
    throw new LedgerError('no_snapshot', `agent ${agent.id} has no snapshot yet: upload a full snapshot first`);
  }
  if (baseSequence !== agent.latest_sequence) {
    throw new LedgerError('stale_sequence',
      `base sequence ${baseSequence} is not the agent's latest sequence ${agent.latest_sequence}`, { latest: agent.latest_sequence });
  }
  const fill = await checkHeadAtBase(backend, params, agent, baseSequence, delta, manifestFile);
  const live = (await liveRawFiles(pool, agent.id, baseSequence)).map((f) => f.path);
  checkDeltaServable(delta, () => live, undefined, keys);
  return store(backend, {
    agentId: agent.id, seq: baseSequence + 1, place: { kind: 'delta', baseSequence }, bytes: params.bytes, now: params.now,
    archive: { kind: 'delta', archive: delta }, ...(fill ? { fill } : {}),
    // A snapshot stored at the base sequence since the check above: this delta was built before it.
    expect: (locked) => {
      if (locked.latest_snapshot_seq !== agent.latest_snapshot_seq) throw supersededBase({ agentId: agent.id, baseSequence, manifestFile });
    },
  });
}

/**
 * The delta must have been built on the entry at `baseSequence`, whatever its kind (the snapshot
 * there when the head is one, else the delta there: lib/ledger/ingest-base.ts `checkBuiltOnHead`),
 * as the embedded ingest checks it: from the entry row's `manifest_created_at` (no S3 GET), or for an
 * entry appended before that column from its blob, returning the value read for the append to write.
 */
async function checkHeadAtBase(backend: PgBackend, params: IngestParams, head: PgAgentRow, baseSequence: number, delta: AlfDelta, manifestFile: string):
Promise<{ entryId: string; createdAt: string } | undefined> {
  if (baseTimestampOf(delta.manifest) === undefined) return undefined;
  const kind = head.latest_snapshot_seq === baseSequence ? 'snapshot' : 'delta';
  const [entry] = await listEntries(backend.db.pool, { agentId: head.id, sinceSeq: baseSequence - 1, upToSeq: baseSequence, kind });
  if (!entry) return undefined;
  const { createdAt, fill } = await headCreatedAt(entry, () => readEntryBytesFrom(backend.blobs, entry), params.limits);
  checkBuiltOnHead({ agentId: head.id, baseSequence, manifestFile, manifest: delta.manifest, createdAt, head: kind });
  return fill;
}
