/**
 * `lineage migrate`: an embedded data directory (SQLite + `<data>/blobs/`) copied into the
 * scale-out backend (PostgreSQL + S3). The ledger is what moves — every blob (checked against its
 * recorded sha256 before it leaves), the API keys (tenants), agents, entries and deleted agents (read in one
 * read transaction, `readLedgerRows`) — and the history
 * index is rebuilt from the copied blobs on PostgreSQL under the rebuild's advisory lock, which
 * verifies every blob's sha256 again as it reads it back from the bucket.
 *
 * Resumable: blobs already in the bucket are not sent again (the rebuild still checks them), the
 * rows go in one idempotent transaction (pg/import.ts), and the rebuild is one transaction; a
 * re-run after a kill at any point completes the copy. Verified at the end: every table's count,
 * every entry's counts, and a sample of answers (agents, timelines, memories, workspace trees,
 * changes, searches) equal on both backends.
 */
import { openPgDatabase } from '@/db/pg/client';
import type { AgentRow, ApiKeyRow, LedgerEntryRow } from '@/db/schema';
import { sha256Hex } from '@/lib/core/uuid';
import { catchUpIndex } from '@/lib/history/pending-index';
import { listDeletedAgents } from '@/lib/ledger/agents';
import { LedgerError } from '@/lib/ledger/errors';
import { openLedger } from '@/lib/ledger/ledger';
import { createS3Client } from '@/lib/ledger/s3-config';
import { S3BlobStore } from '@/lib/ledger/s3-blob-store';
import { StorageUnavailableError, type StorageConfig } from './config';
import { describeScaleOut } from './scale-out-requested';
import { embeddedStorage } from './embedded';
import { compareAnswers, VerifyError } from './migrate-verify';
import { importLedgerRows, type LedgerRows } from './pg/import';
import { scaleOutStorage } from './scale-out';

export interface MigrateSummary {
  agents: number;
  api_keys: number;
  entries: number;
  /** Blobs sent now; the others were in the bucket already (an earlier, interrupted run). */
  blobs_copied: number;
  blobs_present: number;
  record_versions: number;
  /** The answers compared equal on both backends. */
  answers_compared: number;
}

type ScaleOut = Extract<StorageConfig, { backend: 'scale-out' }>;

const INDEX_TABLES = ['record_versions', 'records', 'record_facets', 'record_facet_changes', 'raw_objects', 'raw_file_versions'] as const;

/**
 * The rows `lineage migrate` copies, read in one read transaction: one state of the ledger, whatever a
 * sync (or a delete) commits meanwhile — read one by one, an entry appended between the agents and the
 * entries was copied without its agent's latest sequence, or an agent registered then without its
 * tenant's key. A write landing meanwhile then shows as a verification failure (the source moved on),
 * never as an inconsistent copy. `LINEAGE_MIGRATE_STOP_AT=rows`: the process stops itself (SIGSTOP)
 * between the agents and the entries, for the race test.
 */
export function readLedgerRows(ledger: ReturnType<typeof openLedger>): LedgerRows {
  const { sqlite } = ledger.db;
  const q = <T>(text: string) => sqlite.prepare(text).all() as T[];
  // Deferred: the first SELECT takes the read snapshot (WAL), held until the end of the transaction.
  return sqlite.transaction(() => {
    const apiKeys = q<ApiKeyRow>('SELECT * FROM api_keys ORDER BY id');
    const agents = q<AgentRow>('SELECT * FROM agents ORDER BY id');
    if (process.env.LINEAGE_MIGRATE_STOP_AT === 'rows') process.kill(process.pid, 'SIGSTOP');
    const entries = q<LedgerEntryRow>('SELECT * FROM ledger_entries ORDER BY agent_id, seq, kind');
    const endedSessions = q<{ id: string; expires_at: number }>(`SELECT id, expires_at FROM ended_sessions WHERE expires_at > ${Math.floor(Date.now() / 1000)} ORDER BY id`);
    return { apiKeys, agents, entries, deleted: listDeletedAgents({ ledger }), endedSessions };
  }).deferred();
}

/** Copies `dataDir` into `target`, rebuilds and verifies; `progress` hears each step. */
export async function migrateDataDir(params: { dataDir: string; target: ScaleOut; progress?: (message: string) => void }): Promise<MigrateSummary> {
  const say = params.progress ?? (() => undefined);
  const ledger = openLedger(params.dataDir);
  const source = embeddedStorage(ledger);
  const client = createS3Client(params.target.blobs, params.target.credentials);
  const location = { bucket: params.target.blobs.bucket, prefix: params.target.blobs.prefix };
  const pgDb = await openPgDatabase(params.target.databaseUrl, { readTimeoutMs: params.target.databaseReadMs }).catch((error: unknown) => {
    client.destroy();
    // As every other command says it (config.ts openStorage): not an internal error.
    const why = error instanceof Error ? error.message || String((error as { code?: unknown }).code ?? error.name) : String(error);
    throw new StorageUnavailableError(`cannot open the scale-out storage (${describeScaleOut(params.target.databaseUrl, params.target.blobs)}): ${why}`, { cause: error });
  });
  const blobs = new S3BlobStore(client, location);
  const target = scaleOutStorage({ db: pgDb, blobs, client, location });
  try {
    // Entries a local sync left to the background are folded first: their counts are copied below.
    await catchUpIndex(ledger);
    const q = <T>(text: string) => ledger.db.sqlite.prepare(text).all() as T[];
    const { apiKeys, agents, entries, deleted, endedSessions } = readLedgerRows(ledger);

    const present = new Set(await blobs.list());
    let copied = 0;
    for (const entry of entries) {
      if (present.has(entry.blob_key)) continue;
      const bytes = await ledger.blobs.get(entry.blob_key);
      if (sha256Hex(bytes) !== entry.sha256) {
        throw new LedgerError('blob_corrupt', `the ${entry.kind} of agent ${entry.agent_id} at sequence ${entry.seq} is damaged in ${params.dataDir} (blob ${entry.blob_key} does not match its sha256): nothing of it was copied; run lineage doctor there`);
      }
      await blobs.put(entry.blob_key, bytes);
      copied += 1;
      if (copied % 10 === 0) say(`copied ${copied} blobs`);
    }
    say(`blobs: ${copied} copied, ${entries.length - copied} already in the bucket`);

    await importLedgerRows(pgDb.pool, { apiKeys, agents, entries, deleted, endedSessions });
    say(`rows: ${apiKeys.length} API keys, ${agents.length} agents, ${entries.length} entries, ${deleted.length} deleted agents`);
    const rebuilt = await target.rebuildIndex();
    say(`index rebuilt: ${rebuilt.record_versions} record versions`);

    for (const table of ['api_keys', 'agents', 'ledger_entries', 'deleted_agents', 'deleted_agent_blobs', ...INDEX_TABLES]) {
      const here = (ledger.db.sqlite.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
      const there = (await pgDb.pool.query<{ n: number }>(`SELECT count(*) AS n FROM ${table}`)).rows[0]!.n;
      if (here !== there) throw new VerifyError(`${table} has ${here} rows in ${params.dataDir} and ${there} in PostgreSQL`);
    }
    const counts = 'agent_id, seq, kind, creates, updates, deletes, moves, raw_changed, raw_deleted';
    const pgCounts = (await pgDb.pool.query(`SELECT ${counts} FROM ledger_entries ORDER BY agent_id COLLATE "C", seq, kind COLLATE "C"`)).rows;
    if (JSON.stringify(pgCounts) !== JSON.stringify(q(`SELECT ${counts} FROM ledger_entries ORDER BY agent_id, seq, kind`))) {
      throw new VerifyError('the rebuilt index counts an entry\'s changes differently from the data directory\'s index');
    }
    const compared = await compareAnswers(source, target, agents);
    say(`verified: counts and ${compared} answers equal`);
    return {
      agents: agents.length, api_keys: apiKeys.length, entries: entries.length, blobs_copied: copied,
      blobs_present: entries.length - copied, record_versions: rebuilt.record_versions, answers_compared: compared,
    };
  } finally {
    await source.close();
    await target.close();
  }
}
