/** Test helper: an index's moves written back the way indexes held them before migration 0006. */
import type Database from 'better-sqlite3';

/**
 * Each `move` version becomes a create (keeping `moved_from`) plus a tombstone of the moved-from
 * record at the same sequence; the ledger entries count them as creates and deletes again. With
 * `dropColumn`, `ledger_entries.moves` goes too (a database as migration 0005 left it).
 */
export function writeMovesAsBefore0006(sqlite: Database.Database, opts: { dropColumn?: boolean } = {}): void {
  sqlite.exec(`
    INSERT INTO record_versions (agent_id, record_id, seq, entry_kind, op, content, content_sha256, memory_type, namespace, status,
      origin_file, heading, tags, record_json, created_at, updated_at, observed_at, synced_at, moved_from)
    SELECT p.agent_id, p.record_id, m.seq, m.entry_kind, 'delete', p.content, p.content_sha256, p.memory_type, p.namespace, p.status,
      p.origin_file, p.heading, p.tags, p.record_json, p.created_at, p.updated_at, p.observed_at, m.synced_at, NULL
    FROM record_versions m JOIN record_versions p ON p.id = (
      SELECT w.id FROM record_versions w WHERE w.agent_id = m.agent_id AND w.record_id = m.moved_from
        AND (w.seq < m.seq OR (w.seq = m.seq AND w.entry_kind < m.entry_kind)) ORDER BY w.seq DESC, w.entry_kind DESC LIMIT 1)
    WHERE m.op = 'move';
    UPDATE record_versions SET op = 'create' WHERE op = 'move';
    UPDATE ledger_entries SET creates = creates + moves, deletes = deletes + moves, moves = 0;`);
  if (opts.dropColumn) sqlite.exec('ALTER TABLE ledger_entries DROP COLUMN moves');
}
