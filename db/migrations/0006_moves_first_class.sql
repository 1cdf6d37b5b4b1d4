-- Moves are first-class (lib/history/provenance.ts): a record moved unchanged to another file in
-- one sync is ONE version, the moved-to record's row with op 'move' and `moved_from` set; the
-- moved-from record gets no row at that sequence (its `records` row already has deleted_seq =
-- last_seq = the move's sequence) and `delete` means only a deletion. `ledger_entries.moves`
-- counts moves; `creates` and `deletes` no longer count their halves.
--
-- Indexes written before this migration linked moves with the earlier rule (whole content trimmed,
-- first come first served); they are converted as linked. `lineage index --rebuild` re-reads the
-- ledger with the exact rule of provenance.ts (line endings and each line's trailing whitespace,
-- (file, position) order).
ALTER TABLE `ledger_entries` ADD `moves` integer DEFAULT 0 NOT NULL;
--> statement-breakpoint
UPDATE `ledger_entries` SET
	`moves` = (SELECT count(*) FROM `record_versions` m WHERE m.`agent_id` = `ledger_entries`.`agent_id` AND m.`seq` = `ledger_entries`.`seq`
		AND m.`entry_kind` = `ledger_entries`.`kind` AND m.`moved_from` IS NOT NULL AND m.`op` = 'create')
	WHERE EXISTS (SELECT 1 FROM `record_versions` m WHERE m.`agent_id` = `ledger_entries`.`agent_id` AND m.`seq` = `ledger_entries`.`seq`
		AND m.`entry_kind` = `ledger_entries`.`kind` AND m.`moved_from` IS NOT NULL AND m.`op` = 'create');
--> statement-breakpoint
UPDATE `ledger_entries` SET `creates` = `creates` - `moves`, `deletes` = `deletes` - `moves` WHERE `moves` > 0;
--> statement-breakpoint
-- A tombstone has no full-text row, so deleting it touches no full-text index (the delete trigger skips it).
DELETE FROM `record_versions` WHERE `op` = 'delete' AND EXISTS (
	SELECT 1 FROM `record_versions` m WHERE m.`agent_id` = `record_versions`.`agent_id` AND m.`moved_from` = `record_versions`.`record_id`
		AND m.`seq` = `record_versions`.`seq` AND m.`entry_kind` = `record_versions`.`entry_kind` AND m.`op` = 'create');
--> statement-breakpoint
-- Still searchable: the update trigger takes out the create's full-text row and puts the move's back.
UPDATE `record_versions` SET `op` = 'move' WHERE `moved_from` IS NOT NULL AND `op` = 'create';
