-- Deleted agents (lib/ledger/agents.ts deleteAgent): a row per deleted agent id and a row per blob key its deletion
-- removes, written in the transaction that removes the agent's row. A delete interrupted after that commit (a crash,
-- a blob file that could not be removed) leaves blobs no entry names: `lineage doctor` knows them as a deleted agent's
-- leftovers by these rows, not as uploads whose commit was lost, and never registers the agent again from them.
CREATE TABLE `deleted_agents` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text,
	`name` text NOT NULL,
	`deleted_at` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `deleted_agent_blobs` (
	`agent_id` text NOT NULL,
	`blob_key` text NOT NULL,
	PRIMARY KEY(`agent_id`, `blob_key`),
	FOREIGN KEY (`agent_id`) REFERENCES `deleted_agents`(`id`) ON UPDATE no action ON DELETE cascade
) WITHOUT ROWID;
