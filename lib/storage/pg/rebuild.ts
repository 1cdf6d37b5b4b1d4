/**
 * The history index rebuilt on PostgreSQL from the ledger's blobs in the bucket, by the same
 * `foldEntry` as every ingest (so rebuild == incremental), under the advisory lock `rebuild`: one
 * rebuild at a time across every process (a second is refused with `busy`). Before anything is
 * changed, `BlobStore.list()` must hold every entry's blob; each blob is verified against its
 * recorded sha256 as it is read. All of it is one transaction that first locks every agent's row,
 * so uploads wait for the rebuilt index instead of writing into a half-built one, and a failed
 * rebuild leaves the index as it was. Version ids restart at 1, in replay order.
 */
import type { EntryKind } from '@/db/schema';
import { withAdvisoryLock } from '@/db/pg/advisory-lock';
import { readDelta, readSnapshot } from '@/lib/core/archive';
import { sha256Hex } from '@/lib/core/uuid';
import { foldEntry } from '@/lib/history/indexer';
import { prepareArchive, prepareLedgerBlobSync } from '@/lib/history/ledger-blob';
import { LedgerError } from '@/lib/ledger/errors';
import type { RebuildSummary } from '../types';
import { PgFoldTarget } from './fold-target';
import { refreshIndexStatistics } from './statistics';
import type { PgBackend } from './ingest';
import { readAhead } from './read-ahead';
import { first, inTransaction, rows } from './sql';

interface EntryRow {
  agent_id: string; seq: number; kind: EntryKind; blob_key: string; sha256: string; created_at: string;
  creates: number; updates: number; deletes: number; moves: number; raw_changed: number; raw_deleted: number;
}

function damaged(entry: EntryRow, what: string): LedgerError {
  return new LedgerError('blob_corrupt', `the ${entry.kind} of agent ${entry.agent_id} at sequence ${entry.seq} is damaged: ${what}`,
    { agentId: entry.agent_id, sequence: entry.seq });
}

/** Blobs requested ahead of the fold: each GET is a round trip to the bucket, the fold waits for none of them. */
const READ_AHEAD = 16;

export async function rebuildIndex(backend: PgBackend): Promise<RebuildSummary> {
  return withAdvisoryLock({ db: backend.db, name: 'rebuild' }, async () => {
    const summary = await replayAll(backend);
    // Every row is new: the planner's samples are of the old index (statistics.ts).
    await refreshIndexStatistics(backend.db.pool);
    return summary;
  });
}

function replayAll(backend: PgBackend): Promise<RebuildSummary> {
  return inTransaction(backend.db.pool, async (db) => {
    await db.query('SELECT id FROM agents ORDER BY id FOR UPDATE');
    const entries = await rows<EntryRow>(db, `SELECT e.agent_id, e.seq, e.kind, e.blob_key, e.sha256, e.created_at,
        e.creates, e.updates, e.deletes, e.moves, e.raw_changed, e.raw_deleted
      FROM ledger_entries e ORDER BY e.agent_id COLLATE "C", e.seq, e.kind COLLATE "C"`);
    const listed = new Set(await backend.blobs.list());
    const missing = entries.filter((e) => !listed.has(e.blob_key));
    if (missing.length > 0) {
      throw damaged(missing[0]!, `its blob ${missing[0]!.blob_key} is missing from the bucket (${missing.length} blob(s) missing in all)`);
    }
    await db.query('TRUNCATE record_versions, records, record_facets, record_facet_changes, raw_file_versions, raw_objects RESTART IDENTITY');
    let target: PgFoldTarget | null = null;
    const blobs = readAhead(entries.map((e) => e.blob_key), (key) => backend.blobs.get(key), READ_AHEAD);
    for (const entry of entries) {
      const bytes = await blobs.next();
      if (sha256Hex(bytes) !== entry.sha256) throw damaged(entry, `its blob ${entry.blob_key} does not match its recorded sha256`);
      const prepared = prepareLedgerBlobSync(entry.kind, bytes) ?? (entry.kind === 'delta'
        ? prepareArchive({ kind: 'delta', archive: await readDelta(bytes) })
        : prepareArchive({ kind: 'snapshot', archive: await readSnapshot(bytes) }));
      if (target?.agentId !== entry.agent_id) target = PgFoldTarget.empty(entry.agent_id);
      const c = foldEntry(target, { agentId: entry.agent_id, seq: entry.seq, syncedAt: entry.created_at }, prepared);
      await target.flush(db);
      if (c.creates !== entry.creates || c.updates !== entry.updates || c.deletes !== entry.deletes || c.moves !== entry.moves
        || c.raw_changed !== entry.raw_changed || c.raw_deleted !== entry.raw_deleted) {
        await db.query(`UPDATE ledger_entries SET creates = $1, updates = $2, deletes = $3, moves = $4, raw_changed = $5, raw_deleted = $6
          WHERE agent_id = $7 AND seq = $8 AND kind = $9`, [c.creates, c.updates, c.deletes, c.moves, c.raw_changed, c.raw_deleted, entry.agent_id, entry.seq, entry.kind]);
      }
    }
    const versions = (await first<{ n: number }>(db, 'SELECT count(*) AS n FROM record_versions'))?.n ?? 0;
    return { entries: entries.length, record_versions: versions };
  });
}
