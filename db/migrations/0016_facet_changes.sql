-- The Memories list at an earlier sequence (issue 20 §5) reads its facets and totals from kept counts instead of
-- working out every record's version there: `record_facet_changes` holds, per agent and sequence, how that sequence
-- changed each live-facet counter of record_facets (the sum of its entries' liveFacetDelta, lib/history/live-facets.ts;
-- no row sums to 0), so the counters at sequence N are the sums up to N. Kept by the indexer beside the counters.
--
-- Filled here from the versions: each version that is not a tombstone adds its record's facet values at its sequence
-- and takes them away where it stops being live — at its record's next row (a later version or a delete), or at the
-- row of the record it moved to (a record moved away has no row of its own at the move) — which is what the indexer's
-- deltas sum to per sequence.
CREATE TABLE `record_facet_changes` (
	`agent_id` text NOT NULL,
	`seq` integer NOT NULL,
	`facet` text NOT NULL,
	`value` text NOT NULL,
	`change` integer NOT NULL,
	PRIMARY KEY(`agent_id`, `seq`, `facet`, `value`),
	FOREIGN KEY (`agent_id`) REFERENCES `agents`(`id`) ON UPDATE no action ON DELETE cascade
) WITHOUT ROWID;--> statement-breakpoint
WITH nexts AS MATERIALIZED (
  SELECT v.id, v.agent_id, v.seq, v.memory_type, v.namespace, v.status, v.origin_file, v.tags,
    (SELECT min(w.seq) FROM record_versions w WHERE w.agent_id = v.agent_id AND w.record_id = v.record_id
      AND (w.seq > v.seq OR (w.seq = v.seq AND w.entry_kind > v.entry_kind))) AS next_seq,
    (SELECT min(m.seq) FROM record_versions m INDEXED BY record_versions_moved_from_idx WHERE m.agent_id = v.agent_id
      AND m.moved_from = v.record_id AND (m.seq > v.seq OR (m.seq = v.seq AND m.entry_kind > v.entry_kind))) AS moved_seq
  FROM record_versions v WHERE v.op <> 'delete'),
spans AS MATERIALIZED (
  SELECT *, min(coalesce(next_seq, moved_seq), coalesce(moved_seq, next_seq)) AS end_seq FROM nexts),
ends AS MATERIALIZED (
  SELECT id, agent_id, seq, 1 AS change, memory_type, namespace, status, origin_file, tags FROM spans
  UNION ALL SELECT id, agent_id, end_seq, -1, memory_type, namespace, status, origin_file, tags FROM spans WHERE end_seq IS NOT NULL),
counted AS (
  SELECT agent_id, seq, 'live' AS facet, '' AS value, change FROM ends
  UNION ALL SELECT agent_id, seq, 'memory_type', memory_type, change FROM ends
  UNION ALL SELECT agent_id, seq, 'namespace', namespace, change FROM ends
  UNION ALL SELECT agent_id, seq, 'status', status, change FROM ends
  UNION ALL SELECT agent_id, seq, 'file', origin_file, change FROM ends WHERE origin_file IS NOT NULL
  UNION ALL SELECT agent_id, seq, 'tier', tier, change FROM (
    SELECT DISTINCT ends.id, ends.agent_id, ends.seq, ends.change, substr(t.value, 6) AS tier FROM ends, json_each(ends.tags) t
    WHERE t.type = 'text' AND substr(t.value, 1, 5) = 'tier:'))
INSERT INTO `record_facet_changes` (`agent_id`, `seq`, `facet`, `value`, `change`)
  SELECT agent_id, seq, facet, value, sum(change) FROM counted GROUP BY agent_id, seq, facet, value HAVING sum(change) <> 0;
