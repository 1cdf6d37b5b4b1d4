/**
 * Rebuilds the history index from the ledger's blobs: wipes the index tables and replays every
 * entry, agent by agent (by id), each in (seq, kind) order — the order ingest appended them — so
 * the result equals the incremental index row for row. The whole rebuild is one IMMEDIATE
 * transaction: it either replaces the index completely or leaves it as it was, and other
 * processes wait (busy_timeout) instead of ingesting into a half-built index.
 */
import { and, asc, eq, sql } from 'drizzle-orm';
import { agents, ledger_entries, type LedgerEntryRow } from '@/db/schema';
import { readDelta, readSnapshot } from '@/lib/core/archive';
import type { AlfDelta, AlfSnapshot } from '@/lib/core/archive/types';
import { LedgerError, readEntryBytes, type Ledger } from '@/lib/ledger';
import { indexEntry } from './indexer';

export interface RebuildProgress {
  done: number;
  total: number;
}

export interface RebuildResult {
  entries: number;
  record_versions: number;
}

const PREFETCH = 8;

type Parsed = { kind: 'delta'; archive: AlfDelta } | { kind: 'snapshot'; archive: AlfSnapshot };

async function load(ledger: Ledger, entry: LedgerEntryRow): Promise<Parsed> {
  const bytes = await readEntryBytes({ ledger, entry });
  return entry.kind === 'delta'
    ? { kind: 'delta', archive: await readDelta(bytes) }
    : { kind: 'snapshot', archive: await readSnapshot(bytes) };
}

/**
 * The full-text index is rebuilt once at the end instead of row by row through its triggers
 * (which made a rebuild spend most of its time in FTS maintenance): the triggers are dropped for
 * the duration of the transaction and re-created from their own stored SQL, so a rollback restores
 * them and the schema never drifts from the migration.
 */
function suspendFtsTriggers(ledger: Ledger): () => void {
  const { sqlite } = ledger.db;
  const triggers = sqlite.prepare(
    "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'record_versions' AND sql LIKE '%record_versions_fts%'",
  ).all() as { name: string; sql: string }[];
  for (const t of triggers) sqlite.exec(`DROP TRIGGER "${t.name.replace(/"/g, '""')}"`);
  sqlite.exec("INSERT INTO record_versions_fts(record_versions_fts) VALUES ('delete-all')");
  return () => {
    sqlite.exec("INSERT INTO record_versions_fts(record_versions_fts) VALUES ('rebuild')");
    for (const t of triggers) sqlite.exec(t.sql);
  };
}

function wipe(ledger: Ledger): void {
  ledger.db.sqlite.exec(`
    DELETE FROM record_versions;
    DELETE FROM records;
    DELETE FROM raw_file_versions;
    DELETE FROM raw_objects;
    UPDATE ledger_entries SET creates = 0, updates = 0, deletes = 0, raw_changed = 0, raw_deleted = 0;`);
}

/** Wipes and replays the whole index; `onProgress` is called after each entry. */
export async function rebuildIndex(params: { ledger: Ledger; onProgress?: (p: RebuildProgress) => void }): Promise<RebuildResult> {
  const { ledger } = params;
  const { sqlite, db } = ledger.db;
  if (sqlite.inTransaction) throw new LedgerError('busy', 'a transaction is already open on this database; cannot rebuild now');
  sqlite.exec('BEGIN IMMEDIATE');
  try {
    const restoreFts = suspendFtsTriggers(ledger);
    wipe(ledger);
    const entries = db.select({ e: ledger_entries }).from(ledger_entries)
      .innerJoin(agents, eq(agents.id, ledger_entries.agent_id))
      .orderBy(asc(ledger_entries.agent_id), asc(ledger_entries.seq), asc(ledger_entries.kind)).all().map((r) => r.e);
    const total = entries.length;
    // Blobs are read and parsed a few entries ahead while earlier ones are being indexed.
    const pending: Promise<Parsed>[] = [];
    const prefetch = (i: number) => {
      const entry = entries[i];
      if (!entry) return;
      const loading = load(ledger, entry);
      loading.catch(() => undefined);
      pending[i] = loading;
    };
    for (let i = 0; i < PREFETCH; i++) prefetch(i);
    const setCounts = db.update(ledger_entries).set({
      creates: sql`${sql.placeholder('creates')}`, updates: sql`${sql.placeholder('updates')}`,
      deletes: sql`${sql.placeholder('deletes')}`, raw_changed: sql`${sql.placeholder('raw_changed')}`,
      raw_deleted: sql`${sql.placeholder('raw_deleted')}`,
    }).where(and(eq(ledger_entries.agent_id, sql.placeholder('agent_id')), eq(ledger_entries.seq, sql.placeholder('seq')),
      eq(ledger_entries.kind, sql.placeholder('kind')))).prepare();
    for (let i = 0; i < total; i++) {
      const entry = entries[i]!;
      const parsed = await pending[i]!;
      delete pending[i];
      prefetch(i + PREFETCH);
      const counts = indexEntry(db, { agentId: entry.agent_id, seq: entry.seq, syncedAt: entry.created_at, ...parsed });
      setCounts.run({ ...counts, agent_id: entry.agent_id, seq: entry.seq, kind: entry.kind });
      params.onProgress?.({ done: i + 1, total });
    }
    restoreFts();
    const versions = (sqlite.prepare('SELECT count(*) AS n FROM record_versions').get() as { n: number }).n;
    sqlite.exec('COMMIT');
    return { entries: total, record_versions: versions };
  } catch (error) {
    if (sqlite.inTransaction) sqlite.exec('ROLLBACK');
    throw error;
  }
}
