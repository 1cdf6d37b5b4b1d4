-- The fleet's stats (GET /api/agents, issue 20 §5) from what is kept instead of counted per request:
-- * agent_day_activity: each agent's op counts per UTC day of its entries, kept by triggers on ledger_entries on every
--   insert, update of the counts and delete (ingest, rebuild, import and backend migration all write entries), filled
--   here from the entries. The 28-day activity reads ≤ 28 rows per agent instead of every entry of 28 days.
-- * records_agent_changed_idx: the records an agent changed in the week counted from an index (records.last_changed_at
--   is the time of a record's last op, its move away included) instead of the distinct records of the week's versions.
CREATE TABLE `agent_day_activity` (
	`agent_id` text NOT NULL,
	`day` text NOT NULL,
	`creates` integer DEFAULT 0 NOT NULL,
	`updates` integer DEFAULT 0 NOT NULL,
	`deletes` integer DEFAULT 0 NOT NULL,
	`moves` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`agent_id`, `day`),
	FOREIGN KEY (`agent_id`) REFERENCES `agents`(`id`) ON UPDATE no action ON DELETE cascade
) WITHOUT ROWID;--> statement-breakpoint
INSERT INTO `agent_day_activity` (`agent_id`, `day`, `creates`, `updates`, `deletes`, `moves`)
	SELECT `agent_id`, substr(`created_at`, 1, 10), sum(`creates`), sum(`updates`), sum(`deletes`), sum(`moves`) FROM `ledger_entries` GROUP BY 1, 2;--> statement-breakpoint
CREATE TRIGGER `ledger_entries_activity_ai` AFTER INSERT ON `ledger_entries` BEGIN
	INSERT INTO `agent_day_activity` (`agent_id`, `day`, `creates`, `updates`, `deletes`, `moves`)
		VALUES (new.`agent_id`, substr(new.`created_at`, 1, 10), new.`creates`, new.`updates`, new.`deletes`, new.`moves`)
	ON CONFLICT (`agent_id`, `day`) DO UPDATE SET `creates` = `creates` + excluded.`creates`, `updates` = `updates` + excluded.`updates`,
		`deletes` = `deletes` + excluded.`deletes`, `moves` = `moves` + excluded.`moves`;
END;--> statement-breakpoint
CREATE TRIGGER `ledger_entries_activity_au` AFTER UPDATE OF `agent_id`, `created_at`, `creates`, `updates`, `deletes`, `moves` ON `ledger_entries` BEGIN
	UPDATE `agent_day_activity` SET `creates` = `creates` - old.`creates`, `updates` = `updates` - old.`updates`,
		`deletes` = `deletes` - old.`deletes`, `moves` = `moves` - old.`moves`
	WHERE `agent_id` = old.`agent_id` AND `day` = substr(old.`created_at`, 1, 10);
	INSERT INTO `agent_day_activity` (`agent_id`, `day`, `creates`, `updates`, `deletes`, `moves`)
		VALUES (new.`agent_id`, substr(new.`created_at`, 1, 10), new.`creates`, new.`updates`, new.`deletes`, new.`moves`)
	ON CONFLICT (`agent_id`, `day`) DO UPDATE SET `creates` = `creates` + excluded.`creates`, `updates` = `updates` + excluded.`updates`,
		`deletes` = `deletes` + excluded.`deletes`, `moves` = `moves` + excluded.`moves`;
END;--> statement-breakpoint
CREATE TRIGGER `ledger_entries_activity_ad` AFTER DELETE ON `ledger_entries` BEGIN
	UPDATE `agent_day_activity` SET `creates` = `creates` - old.`creates`, `updates` = `updates` - old.`updates`,
		`deletes` = `deletes` - old.`deletes`, `moves` = `moves` - old.`moves`
	WHERE `agent_id` = old.`agent_id` AND `day` = substr(old.`created_at`, 1, 10);
END;--> statement-breakpoint
CREATE INDEX `records_agent_changed_idx` ON `records` (`agent_id`,`last_changed_at`);
