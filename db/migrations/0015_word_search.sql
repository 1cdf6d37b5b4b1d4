-- Search reads a word index instead of the trigram one (lib/history/search/index-text.ts says what
-- it holds and why): a contentless FTS5 table of our own tokens, which answers a query made of whole
-- words exactly, so that search reads no content for it; a sixth of the trigram index's size, and a
-- fourth of its cost to write. `contentless_delete` lets a version's row be deleted by its id alone.
--
-- The index is filled by the program, not here (SQL cannot cut text into our tokens): the row in
-- `search_words_backfill` tells `openDatabase` (db/client.ts) to index every searchable version from
-- that id on, in one transaction, and to drop the table; until then the database counts as not
-- migrated (a read-only handle refuses it).
--
-- The indexer writes a version's row (lib/history/statements.ts, rebuild-target.ts); the delete
-- trigger removes it with the version. An update that would change a version's row (its content, or
-- whether it is a tombstone) outside the rebuild (which drops these triggers for its transaction) is
-- refused, since SQL could not write the new row; an op changed otherwise (0006's create → move)
-- leaves the row as it is.
--
-- record_versions_hits_idx: the columns a search reads of every hit, so that thousands of hits are
-- read from a narrow index instead of the table's wide rows (their canonical JSON).
DROP TRIGGER `record_versions_fts_ad`;--> statement-breakpoint
DROP TRIGGER `record_versions_fts_au`;--> statement-breakpoint
DROP TABLE `record_versions_fts`;--> statement-breakpoint
CREATE VIRTUAL TABLE `record_versions_words` USING fts5(
	words,
	content='',
	contentless_delete=1,
	tokenize="unicode61 remove_diacritics 0 categories 'L* N* M*'"
);--> statement-breakpoint
CREATE TRIGGER `record_versions_words_ad` AFTER DELETE ON `record_versions` WHEN old.op <> 'delete' BEGIN
	DELETE FROM `record_versions_words` WHERE rowid = old.id;
END;--> statement-breakpoint
CREATE TRIGGER `record_versions_words_au` BEFORE UPDATE OF content, op ON `record_versions`
	WHEN (old.op <> 'delete' OR new.op <> 'delete') AND (new.content IS NOT old.content OR (old.op = 'delete') <> (new.op = 'delete')) BEGIN
	SELECT RAISE(ABORT, 'a version''s content and op are written once (its word index row is written by the indexer)');
END;--> statement-breakpoint
CREATE INDEX `record_versions_hits_idx` ON `record_versions` (`id`,`agent_id`,`record_id`,`seq`,`entry_kind`,`op`,`synced_at`) WHERE op <> 'delete';--> statement-breakpoint
CREATE TABLE `search_words_backfill` (`from_id` integer NOT NULL);--> statement-breakpoint
INSERT INTO `search_words_backfill` (`from_id`) VALUES (0);
