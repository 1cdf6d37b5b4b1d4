-- A comparison of two sequences (lib/history/queries/compare-states.ts) needs, for each record touched between them,
-- its version at the earlier end: its row id, whether it is a tombstone, and its content's digest. Read from the
-- table, that is one wide row (~900 bytes, its own page) per record — thousands of scattered page reads for a far
-- comparison; this index holds the three beside the key, so the earlier end is one index seek per record.
CREATE INDEX `record_versions_state_idx` ON `record_versions` (`agent_id`,`record_id`,`seq`,`entry_kind`,`op`,`content_sha256`);
