-- Fleet-scale reads (issue 20 §5, bench/ui-scale) answered from what ingest keeps up to date instead of
-- counted over every row per request:
-- * record_facets: each agent's live records counted by facet at its latest sequence, kept by the indexer
--   (lib/history/live-facets.ts) in the ingest's transaction; filled here from the records live now, with
--   the indexer's rules (a `tier:X` tag counts its record once under X; no row for origin_file NULL).
-- * record_versions_seq_file_idx: a sequence's ops per file counted from the index alone.
-- * ledger_entries_agent_time_idx now covers the op counts, so the fleet's 28-day activity reads no table row.
CREATE TABLE `record_facets` (
	`agent_id` text NOT NULL,
	`facet` text NOT NULL,
	`value` text NOT NULL,
	`count` integer NOT NULL,
	PRIMARY KEY(`agent_id`, `facet`, `value`),
	FOREIGN KEY (`agent_id`) REFERENCES `agents`(`id`) ON UPDATE no action ON DELETE cascade
);--> statement-breakpoint
WITH live AS MATERIALIZED (
  SELECT r.agent_id, r.record_id, v.memory_type, v.namespace, v.status, v.origin_file, v.tags
  FROM records r JOIN record_versions v ON v.id = (
    SELECT w.id FROM record_versions w WHERE w.agent_id = r.agent_id AND w.record_id = r.record_id
    ORDER BY w.seq DESC, w.entry_kind DESC LIMIT 1)
  WHERE r.deleted_seq IS NULL)
INSERT INTO `record_facets` (`agent_id`, `facet`, `value`, `count`)
  SELECT agent_id, 'live', '', count(*) FROM live GROUP BY agent_id
  UNION ALL SELECT agent_id, 'memory_type', memory_type, count(*) FROM live GROUP BY agent_id, memory_type
  UNION ALL SELECT agent_id, 'namespace', namespace, count(*) FROM live GROUP BY agent_id, namespace
  UNION ALL SELECT agent_id, 'status', status, count(*) FROM live GROUP BY agent_id, status
  UNION ALL SELECT agent_id, 'file', origin_file, count(*) FROM live WHERE origin_file IS NOT NULL GROUP BY agent_id, origin_file
  UNION ALL SELECT agent_id, 'tier', tier, count(*) FROM (
    SELECT DISTINCT live.agent_id, live.record_id, substr(t.value, 6) AS tier FROM live, json_each(live.tags) t
    WHERE t.type = 'text' AND substr(t.value, 1, 5) = 'tier:')
  GROUP BY agent_id, tier;--> statement-breakpoint
CREATE INDEX `record_versions_seq_file_idx` ON `record_versions` (`agent_id`,`seq`,`entry_kind`,`origin_file`);--> statement-breakpoint
DROP INDEX `ledger_entries_agent_time_idx`;--> statement-breakpoint
CREATE INDEX `ledger_entries_agent_time_idx` ON `ledger_entries` (`agent_id`,`created_at`,`creates`,`updates`,`deletes`,`moves`);
