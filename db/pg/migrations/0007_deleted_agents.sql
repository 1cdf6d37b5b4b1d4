-- db/migrations/0019_deleted_agents.sql on PostgreSQL: a row per deleted agent id and a row per blob key its deletion
-- removes, written in the transaction that removes the agent's row (lib/storage/pg/delete-agent.ts), so `lineage
-- doctor` knows the objects an interrupted delete left in the bucket as a deleted agent's, not as lost commits.
CREATE TABLE "deleted_agents" (
	"id" text PRIMARY KEY NOT NULL,
	"tenant_id" text,
	"name" text NOT NULL,
	"deleted_at" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "deleted_agent_blobs" (
	"agent_id" text NOT NULL,
	"blob_key" text NOT NULL,
	CONSTRAINT "deleted_agent_blobs_agent_id_blob_key_pk" PRIMARY KEY("agent_id","blob_key")
);
--> statement-breakpoint
ALTER TABLE "deleted_agent_blobs" ADD CONSTRAINT "deleted_agent_blobs_agent_id_deleted_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."deleted_agents"("id") ON DELETE cascade ON UPDATE no action;
