CREATE TABLE `agents` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text,
	`name` text NOT NULL,
	`source_runtime` text,
	`created_at` text NOT NULL,
	`latest_sequence` integer,
	`latest_snapshot_seq` integer
);
--> statement-breakpoint
CREATE INDEX `agents_tenant_idx` ON `agents` (`tenant_id`);--> statement-breakpoint
CREATE TABLE `api_keys` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`key_hash` text NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `api_keys_key_hash_unique` ON `api_keys` (`key_hash`);--> statement-breakpoint
CREATE TABLE `ledger_entries` (
	`id` text NOT NULL,
	`agent_id` text NOT NULL,
	`seq` integer NOT NULL,
	`kind` text NOT NULL,
	`blob_key` text NOT NULL,
	`sha256` text NOT NULL,
	`size_bytes` integer NOT NULL,
	`created_at` text NOT NULL,
	`creates` integer DEFAULT 0 NOT NULL,
	`updates` integer DEFAULT 0 NOT NULL,
	`deletes` integer DEFAULT 0 NOT NULL,
	`raw_changed` integer DEFAULT 0 NOT NULL,
	`raw_deleted` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`agent_id`, `seq`, `kind`),
	FOREIGN KEY (`agent_id`) REFERENCES `agents`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `ledger_entries_id_unique` ON `ledger_entries` (`id`);--> statement-breakpoint
CREATE INDEX `ledger_entries_agent_time_idx` ON `ledger_entries` (`agent_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `ledger_entries_time_idx` ON `ledger_entries` (`created_at`);--> statement-breakpoint
CREATE TABLE `raw_file_versions` (
	`agent_id` text NOT NULL,
	`path` text NOT NULL,
	`seq` integer NOT NULL,
	`entry_kind` text NOT NULL,
	`sha256` text,
	`size` integer NOT NULL,
	`deleted` integer NOT NULL,
	PRIMARY KEY(`agent_id`, `path`, `seq`, `entry_kind`),
	FOREIGN KEY (`agent_id`) REFERENCES `agents`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `raw_file_versions_agent_seq_idx` ON `raw_file_versions` (`agent_id`,`seq`);--> statement-breakpoint
CREATE INDEX `raw_file_versions_sha_idx` ON `raw_file_versions` (`sha256`);--> statement-breakpoint
CREATE TABLE `raw_objects` (
	`sha256` text PRIMARY KEY NOT NULL,
	`size` integer NOT NULL,
	`data` blob NOT NULL
);
--> statement-breakpoint
CREATE TABLE `record_versions` (
	`id` integer PRIMARY KEY NOT NULL,
	`agent_id` text NOT NULL,
	`record_id` text NOT NULL,
	`seq` integer NOT NULL,
	`entry_kind` text NOT NULL,
	`op` text NOT NULL,
	`content` text NOT NULL,
	`content_sha256` text NOT NULL,
	`memory_type` text NOT NULL,
	`namespace` text NOT NULL,
	`status` text NOT NULL,
	`origin_file` text,
	`heading` text,
	`tags` text NOT NULL,
	`record_json` text NOT NULL,
	`created_at` text,
	`updated_at` text,
	`observed_at` text,
	`synced_at` text NOT NULL,
	`moved_from` text,
	FOREIGN KEY (`agent_id`) REFERENCES `agents`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `record_versions_key_idx` ON `record_versions` (`agent_id`,`record_id`,`seq`,`entry_kind`);--> statement-breakpoint
CREATE INDEX `record_versions_agent_seq_idx` ON `record_versions` (`agent_id`,`seq`);--> statement-breakpoint
CREATE INDEX `record_versions_agent_synced_idx` ON `record_versions` (`agent_id`,`synced_at`);--> statement-breakpoint
CREATE INDEX `record_versions_synced_idx` ON `record_versions` (`synced_at`);--> statement-breakpoint
CREATE INDEX `record_versions_moved_from_idx` ON `record_versions` (`agent_id`,`moved_from`) WHERE moved_from IS NOT NULL;--> statement-breakpoint
CREATE TABLE `records` (
	`agent_id` text NOT NULL,
	`record_id` text NOT NULL,
	`first_seq` integer NOT NULL,
	`last_seq` integer NOT NULL,
	`deleted_seq` integer,
	`content` text NOT NULL,
	`memory_type` text NOT NULL,
	`namespace` text NOT NULL,
	`status` text NOT NULL,
	`origin_file` text,
	`heading` text,
	`tags` text NOT NULL,
	`record_json` text NOT NULL,
	`born_at` text NOT NULL,
	`last_changed_at` text NOT NULL,
	PRIMARY KEY(`agent_id`, `record_id`),
	FOREIGN KEY (`agent_id`) REFERENCES `agents`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `records_agent_live_idx` ON `records` (`agent_id`,`deleted_seq`);