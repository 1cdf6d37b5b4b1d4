-- db/migrations/0016_facet_changes.sql on PostgreSQL: how each sequence changed an agent's live-facet counters, kept
-- by the fold, filled here from the versions with the same rules (a version adds its facet values at its sequence and
-- takes them away at its record's next row or at the row of the record it moved to).
CREATE TABLE "record_facet_changes" (
	"agent_id" text NOT NULL,
	"seq" integer NOT NULL,
	"facet" text NOT NULL,
	"value" text NOT NULL,
	"change" integer NOT NULL,
	CONSTRAINT "record_facet_changes_agent_id_seq_facet_value_pk" PRIMARY KEY("agent_id","seq","facet","value")
);
--> statement-breakpoint
ALTER TABLE "record_facet_changes" ADD CONSTRAINT "record_facet_changes_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."agents"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
WITH nexts AS MATERIALIZED (
  SELECT v.id, v.agent_id, v.seq, v.memory_type, v.namespace, v.status, v.origin_file, v.tags,
    (SELECT min(w.seq) FROM record_versions w WHERE w.agent_id = v.agent_id AND w.record_id = v.record_id
      AND (w.seq > v.seq OR (w.seq = v.seq AND w.entry_kind > v.entry_kind))) AS next_seq,
    (SELECT min(m.seq) FROM record_versions m WHERE m.agent_id = v.agent_id AND m.moved_from = v.record_id
      AND (m.seq > v.seq OR (m.seq = v.seq AND m.entry_kind > v.entry_kind))) AS moved_seq
  FROM record_versions v WHERE v.op <> 'delete'),
spans AS MATERIALIZED (SELECT *, least(next_seq, moved_seq) AS end_seq FROM nexts),
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
    SELECT DISTINCT ends.id, ends.agent_id, ends.seq, ends.change, substr(t.value #>> '{}', 6) AS tier
    FROM ends, jsonb_array_elements(ends.tags::jsonb) t
    WHERE jsonb_typeof(t.value) = 'string' AND left(t.value #>> '{}', 5) = 'tier:') tiers)
INSERT INTO "record_facet_changes" ("agent_id", "seq", "facet", "value", "change")
  SELECT agent_id, seq, facet, value, sum(change) FROM counted GROUP BY agent_id, seq, facet, value HAVING sum(change) <> 0;
