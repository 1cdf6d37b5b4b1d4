-- `records` no longer repeats the fields of each record's latest version (content, type, file,
-- tags, canonical JSON, …): readers take them from that `record_versions` row. The table is rebuilt
-- in one pass instead of one rewrite per dropped column.
CREATE TABLE `__new_records` (
	`agent_id` text NOT NULL,
	`record_id` text NOT NULL,
	`first_seq` integer NOT NULL,
	`last_seq` integer NOT NULL,
	`deleted_seq` integer,
	`born_at` text NOT NULL,
	`last_changed_at` text NOT NULL,
	PRIMARY KEY(`agent_id`, `record_id`),
	FOREIGN KEY (`agent_id`) REFERENCES `agents`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
INSERT INTO `__new_records` (`agent_id`, `record_id`, `first_seq`, `last_seq`, `deleted_seq`, `born_at`, `last_changed_at`)
	SELECT `agent_id`, `record_id`, `first_seq`, `last_seq`, `deleted_seq`, `born_at`, `last_changed_at` FROM `records` ORDER BY `agent_id`, `record_id`;
--> statement-breakpoint
DROP TABLE `records`;
--> statement-breakpoint
ALTER TABLE `__new_records` RENAME TO `records`;
--> statement-breakpoint
CREATE INDEX `records_agent_live_idx` ON `records` (`agent_id`,`deleted_seq`);
