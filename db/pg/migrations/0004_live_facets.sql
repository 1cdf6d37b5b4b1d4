-- db/migrations/0013_live_facets.sql on PostgreSQL: the live-facet counters (kept by the fold, filled here from the records
-- live now with the fold's rules) and a sequence's ops per file counted from an index.
CREATE TABLE "record_facets" (
	"agent_id" text NOT NULL,
	"facet" text NOT NULL,
	"value" text NOT NULL,
	"count" integer NOT NULL,
	CONSTRAINT "record_facets_agent_id_facet_value_pk" PRIMARY KEY("agent_id","facet","value")
);
--> statement-breakpoint
ALTER TABLE "record_facets" ADD CONSTRAINT "record_facets_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."agents"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "record_versions_seq_file_idx" ON "record_versions" USING btree ("agent_id","seq","entry_kind" COLLATE "C","origin_file" COLLATE "C");--> statement-breakpoint
WITH live AS MATERIALIZED (
  SELECT r.agent_id, r.record_id, v.memory_type, v.namespace, v.status, v.origin_file, v.tags
  FROM records r CROSS JOIN LATERAL (
    SELECT w.memory_type, w.namespace, w.status, w.origin_file, w.tags FROM record_versions w
    WHERE w.agent_id = r.agent_id AND w.record_id = r.record_id ORDER BY w.seq DESC, w.entry_kind COLLATE "C" DESC LIMIT 1) v
  WHERE r.deleted_seq IS NULL)
INSERT INTO "record_facets" ("agent_id", "facet", "value", "count")
  SELECT agent_id, 'live', '', count(*) FROM live GROUP BY agent_id
  UNION ALL SELECT agent_id, 'memory_type', memory_type, count(*) FROM live GROUP BY agent_id, memory_type
  UNION ALL SELECT agent_id, 'namespace', namespace, count(*) FROM live GROUP BY agent_id, namespace
  UNION ALL SELECT agent_id, 'status', status, count(*) FROM live GROUP BY agent_id, status
  UNION ALL SELECT agent_id, 'file', origin_file, count(*) FROM live WHERE origin_file IS NOT NULL GROUP BY agent_id, origin_file
  UNION ALL SELECT agent_id, 'tier', tier, count(*) FROM (
    SELECT DISTINCT live.agent_id, live.record_id, substr(t.value #>> '{}', 6) AS tier FROM live, jsonb_array_elements(live.tags::jsonb) t
    WHERE jsonb_typeof(t.value) = 'string' AND left(t.value #>> '{}', 5) = 'tier:') tiers
  GROUP BY agent_id, tier;
