-- Keyset paging of the dashboard's long lists, each page read in index order (every index ends in the
-- rowid, which breaks ties): a sequence's ops of one kind in (entry_kind, id) order; the Memories list
-- sorted by file and by heading (expression indexes: the queries order by exactly these expressions).
-- The change feeds use the existing synced_at indexes and the "last change" sort (agent_id, seq).
CREATE INDEX `record_versions_seq_op_idx` ON `record_versions` (`agent_id`,`seq`,`op`,`entry_kind`);--> statement-breakpoint
CREATE INDEX `record_versions_file_order_idx` ON `record_versions` (`agent_id`,coalesce("origin_file", ''));--> statement-breakpoint
CREATE INDEX `record_versions_heading_order_idx` ON `record_versions` (`agent_id`,coalesce("heading", ''));
