-- The full-text row of a new record version is written by the indexer, in the statement after the
-- version's own insert (lib/history/statements.ts), instead of by an AFTER INSERT trigger. An
-- insert whose trigger writes a second table runs in a statement savepoint, and FTS5 writes its
-- pending terms out as a new segment at every savepoint: one segment per version, merged again and
-- again by automerge (about 0.1 ms per version, 25 times the cost of the row itself). Written in
-- the indexer's own statement, the terms stay pending until the transaction commits: one segment
-- per ingest. The delete and update triggers stay (rows are deleted or rewritten only by rare
-- maintenance: an agent's removal, a rebuild).
DROP TRIGGER `record_versions_fts_ai`;
