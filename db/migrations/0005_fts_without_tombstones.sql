-- The full-text index covers the versions search reads: creates and updates. A tombstone
-- (op = 'delete') repeats its record's last content, which the version before it already indexes,
-- and search never returns tombstones (lib/history/queries/search.ts). Tombstones were about a
-- third of the index's rows in a long history.
--
-- The index's external content is a view of the indexed versions, so FTS5's own checks
-- ('integrity-check' with rank 1) and 'rebuild' see exactly the rows the index holds. The indexer
-- writes a version's full-text row only when it is not a tombstone (lib/history/statements.ts,
-- lib/history/rebuild-target.ts); the delete and update triggers touch the index only for indexed
-- rows (a 'delete' of a row the index does not hold would corrupt it).
DROP TRIGGER `record_versions_fts_ad`;
--> statement-breakpoint
DROP TRIGGER `record_versions_fts_au`;
--> statement-breakpoint
DROP TABLE `record_versions_fts`;
--> statement-breakpoint
CREATE VIEW `record_versions_searchable` AS SELECT `id`, `content` FROM `record_versions` WHERE `op` <> 'delete';
--> statement-breakpoint
CREATE VIRTUAL TABLE `record_versions_fts` USING fts5(
	content,
	content='record_versions_searchable',
	content_rowid='id',
	tokenize='trigram'
);
--> statement-breakpoint
INSERT INTO `record_versions_fts`(`record_versions_fts`) VALUES ('rebuild');
--> statement-breakpoint
CREATE TRIGGER `record_versions_fts_ad` AFTER DELETE ON `record_versions` WHEN old.op <> 'delete' BEGIN
	INSERT INTO `record_versions_fts`(`record_versions_fts`, rowid, content) VALUES ('delete', old.id, old.content);
END;
--> statement-breakpoint
CREATE TRIGGER `record_versions_fts_au` AFTER UPDATE OF content, op ON `record_versions` BEGIN
	INSERT INTO `record_versions_fts`(`record_versions_fts`, rowid, content) SELECT 'delete', old.id, old.content WHERE old.op <> 'delete';
	INSERT INTO `record_versions_fts`(rowid, content) SELECT new.id, new.content WHERE new.op <> 'delete';
END;
