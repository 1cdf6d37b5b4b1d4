/**
 * For tests: whether the word index holds exactly what the indexer writes — for every searchable
 * version (not a tombstone) its tokens (`indexText` of its content) in order, and nothing for any
 * other id. The word index is contentless, so FTS5's own 'integrity-check' cannot compare it with
 * the versions; this reads its tokens back through an `fts5vocab` table.
 */
import type Database from 'better-sqlite3';
import { indexText } from '../search/index-text';

/** Differences between the index and the versions, at most `limit` (none: []). */
export function wordIndexProblems(sqlite: Database.Database, limit = 10): string[] {
  sqlite.exec("CREATE VIRTUAL TABLE IF NOT EXISTS temp.words_check USING fts5vocab(main, record_versions_words, 'instance')");
  const held = new Map<number, string[]>();
  for (const [doc, term] of sqlite.prepare('SELECT doc, term FROM temp.words_check ORDER BY doc, "offset"').raw().all() as [number, string][]) {
    let tokens = held.get(doc);
    if (!tokens) held.set(doc, (tokens = []));
    tokens.push(term);
  }
  const problems: string[] = [];
  const versions = sqlite.prepare("SELECT id, content FROM record_versions WHERE op <> 'delete' ORDER BY id").raw().all() as [number, string][];
  for (const [id, content] of versions) {
    const want = indexText(content).split(/\s+/u).filter((t) => t.length > 0).join(' ');
    const got = (held.get(id) ?? []).join(' ');
    if (want !== got) problems.push(`version ${id}: index holds "${got}", its content gives "${want}"`);
    held.delete(id);
  }
  for (const id of held.keys()) problems.push(`index row ${id}: no searchable version has that id`);
  // A version whose content gives no token has no instance rows; its document still counts here.
  const docs = sqlite.prepare('SELECT count(*) FROM record_versions_words_docsize').pluck().get() as number;
  if (docs !== versions.length) problems.push(`index holds ${docs} documents for ${versions.length} searchable versions`);
  return problems.slice(0, limit);
}
