-- Ledger entries appended without being folded into the history index yet (lib/history/pending-index.ts): a local
-- `lineage sync` appends a large entry and leaves its fold to a background `lineage index --catch-up`, the way
-- `git commit` leaves `git gc --auto` to run after it. Every reader of the index, and every ingest, folds the pending
-- entries first; the rebuild empties it. One row per entry, removed in the transaction that folds it.
CREATE TABLE `index_pending` (
	`agent_id` text NOT NULL,
	`seq` integer NOT NULL,
	`kind` text NOT NULL,
	PRIMARY KEY(`agent_id`, `seq`, `kind`),
	FOREIGN KEY (`agent_id`) REFERENCES `agents`(`id`) ON UPDATE no action ON DELETE cascade
) WITHOUT ROWID;
