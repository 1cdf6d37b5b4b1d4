-- Full-text search over record_versions.content. External-content FTS5 (the text lives once, in
-- record_versions), trigram tokenizer: case-insensitive substring/phrase search, so tokens such as
-- `evt-00012-a1b2c3` or `10.0.4.17` are findable whole. Kept in sync by triggers.
CREATE VIRTUAL TABLE `record_versions_fts` USING fts5(
	content,
	content='record_versions',
	content_rowid='id',
	tokenize='trigram'
);
--> statement-breakpoint
CREATE TRIGGER `record_versions_fts_ai` AFTER INSERT ON `record_versions` BEGIN
	INSERT INTO `record_versions_fts`(rowid, content) VALUES (new.id, new.content);
END;
--> statement-breakpoint
CREATE TRIGGER `record_versions_fts_ad` AFTER DELETE ON `record_versions` BEGIN
	INSERT INTO `record_versions_fts`(`record_versions_fts`, rowid, content) VALUES ('delete', old.id, old.content);
END;
--> statement-breakpoint
CREATE TRIGGER `record_versions_fts_au` AFTER UPDATE OF content ON `record_versions` BEGIN
	INSERT INTO `record_versions_fts`(`record_versions_fts`, rowid, content) VALUES ('delete', old.id, old.content);
	INSERT INTO `record_versions_fts`(rowid, content) VALUES (new.id, new.content);
END;
