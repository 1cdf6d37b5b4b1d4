CREATE TABLE "agents" (
	"id" text PRIMARY KEY NOT NULL,
	"tenant_id" text,
	"name" text NOT NULL,
	"source_runtime" text,
	"created_at" text NOT NULL,
	"latest_sequence" integer,
	"latest_snapshot_seq" integer
);
--> statement-breakpoint
CREATE TABLE "api_keys" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"key_hash" text NOT NULL,
	"created_at" text NOT NULL,
	CONSTRAINT "api_keys_key_hash_unique" UNIQUE("key_hash")
);
--> statement-breakpoint
CREATE TABLE "ledger_entries" (
	"id" text NOT NULL,
	"agent_id" text NOT NULL,
	"seq" integer NOT NULL,
	"kind" text NOT NULL,
	"blob_key" text NOT NULL,
	"sha256" text NOT NULL,
	"size_bytes" bigint NOT NULL,
	"created_at" text NOT NULL,
	"creates" integer DEFAULT 0 NOT NULL,
	"updates" integer DEFAULT 0 NOT NULL,
	"deletes" integer DEFAULT 0 NOT NULL,
	"raw_changed" integer DEFAULT 0 NOT NULL,
	"raw_deleted" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "ledger_entries_agent_id_seq_kind_pk" PRIMARY KEY("agent_id","seq","kind"),
	CONSTRAINT "ledger_entries_id_unique" UNIQUE("id")
);
--> statement-breakpoint
ALTER TABLE "ledger_entries" ADD CONSTRAINT "ledger_entries_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."agents"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "agents_tenant_idx" ON "agents" USING btree ("tenant_id");--> statement-breakpoint
CREATE INDEX "ledger_entries_agent_time_idx" ON "ledger_entries" USING btree ("agent_id","created_at");--> statement-breakpoint
CREATE INDEX "ledger_entries_time_idx" ON "ledger_entries" USING btree ("created_at");