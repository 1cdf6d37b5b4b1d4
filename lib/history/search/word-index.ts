/**
 * Writing the word index (`record_versions_words`, migration 0015): a version's row, and the
 * one-time fill of a database that migration 0015 has just given an empty index.
 */
import type Database from 'better-sqlite3';
import { indexText } from './index-text';

/** A version's word-index row; its text is `indexText(content)`. */
export const INSERT_WORDS = 'INSERT INTO record_versions_words (rowid, words) VALUES (?, ?)';

const BACKFILL_TABLE = 'search_words_backfill';

/** Whether migration 0015's fill is still to be done (the database is then not fully migrated). */
export function wordIndexPending(sqlite: Database.Database): boolean {
  return sqlite.prepare('SELECT 1 FROM sqlite_master WHERE type = ? AND name = ?').get('table', BACKFILL_TABLE) !== undefined;
}

/**
 * Indexes every searchable version from the id migration 0015 left on, then drops the marker
 * table, in one transaction: a crash leaves the marker, and the next open starts again. Rows are
 * read in id order and written as the indexer writes them.
 */
export function fillWordIndex(sqlite: Database.Database): void {
  if (!wordIndexPending(sqlite)) return;
  sqlite.transaction(() => {
    let after = ((sqlite.prepare(`SELECT min(from_id) FROM ${BACKFILL_TABLE}`).pluck().get() as number | null) ?? 0) - 1;
    const insert = sqlite.prepare(INSERT_WORDS);
    // In batches: a connection runs no write while a read of it is being iterated.
    const batch = sqlite.prepare("SELECT id, content FROM record_versions WHERE id > ? AND op <> 'delete' ORDER BY id LIMIT 2000").raw();
    for (let rows = batch.all(after) as [number, string][]; rows.length > 0; rows = batch.all(after) as [number, string][]) {
      for (const [id, content] of rows) insert.run(id, indexText(content));
      after = rows.at(-1)![0];
    }
    sqlite.exec(`DROP TABLE ${BACKFILL_TABLE}`);
  }).immediate();
}
