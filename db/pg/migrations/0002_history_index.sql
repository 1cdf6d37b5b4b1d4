CREATE TABLE "pending_uploads" (
	"id" text PRIMARY KEY NOT NULL,
	"agent_id" text NOT NULL,
	"tenant_id" text NOT NULL,
	"kind" text NOT NULL,
	"base_sequence" integer,
	"expires_at" text NOT NULL,
	"confirmed_status" integer,
	"confirmed_body" text
);
--> statement-breakpoint
CREATE TABLE "raw_file_versions" (
	"agent_id" text NOT NULL,
	"path" text NOT NULL,
	"seq" integer NOT NULL,
	"entry_kind" text NOT NULL,
	"sha256" text,
	"size" bigint NOT NULL,
	"deleted" integer NOT NULL,
	"reconstructed" integer,
	CONSTRAINT "raw_file_versions_agent_id_path_seq_entry_kind_pk" PRIMARY KEY("agent_id","path","seq","entry_kind")
);
--> statement-breakpoint
CREATE TABLE "raw_objects" (
	"sha256" text PRIMARY KEY NOT NULL,
	"size" bigint NOT NULL,
	"data" "bytea" NOT NULL
);
--> statement-breakpoint
CREATE TABLE "record_versions" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"agent_id" text NOT NULL,
	"record_id" text NOT NULL,
	"seq" integer NOT NULL,
	"entry_kind" text NOT NULL,
	"op" text NOT NULL,
	"content" text NOT NULL,
	"content_sha256" text NOT NULL,
	"memory_type" text NOT NULL,
	"namespace" text NOT NULL,
	"status" text NOT NULL,
	"origin_file" text,
	"heading" text,
	"tags" text NOT NULL,
	"record_json" text NOT NULL,
	"created_at" text,
	"updated_at" text,
	"observed_at" text,
	"synced_at" text NOT NULL,
	"moved_from" text
);
--> statement-breakpoint
CREATE TABLE "records" (
	"agent_id" text NOT NULL,
	"record_id" text NOT NULL,
	"first_seq" integer NOT NULL,
	"last_seq" integer NOT NULL,
	"deleted_seq" integer,
	"born_at" text NOT NULL,
	"last_changed_at" text NOT NULL,
	CONSTRAINT "records_agent_id_record_id_pk" PRIMARY KEY("agent_id","record_id")
);
--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "admin" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "ledger_entries" ADD COLUMN "moves" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "raw_file_versions" ADD CONSTRAINT "raw_file_versions_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."agents"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "record_versions" ADD CONSTRAINT "record_versions_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."agents"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "records" ADD CONSTRAINT "records_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."agents"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "pending_uploads_expires_idx" ON "pending_uploads" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "raw_file_versions_agent_seq_idx" ON "raw_file_versions" USING btree ("agent_id","seq");--> statement-breakpoint
CREATE INDEX "raw_file_versions_sha_idx" ON "raw_file_versions" USING btree ("sha256");--> statement-breakpoint
CREATE INDEX "raw_file_versions_reconstructed_idx" ON "raw_file_versions" USING btree ("agent_id","seq") WHERE "raw_file_versions"."reconstructed" = 1;--> statement-breakpoint
CREATE UNIQUE INDEX "record_versions_key_idx" ON "record_versions" USING btree ("agent_id","record_id","seq","entry_kind");--> statement-breakpoint
CREATE INDEX "record_versions_agent_seq_idx" ON "record_versions" USING btree ("agent_id","seq");--> statement-breakpoint
CREATE INDEX "record_versions_agent_synced_idx" ON "record_versions" USING btree ("agent_id","synced_at");--> statement-breakpoint
CREATE INDEX "record_versions_synced_idx" ON "record_versions" USING btree ("synced_at");--> statement-breakpoint
CREATE INDEX "record_versions_moved_from_idx" ON "record_versions" USING btree ("agent_id","moved_from") WHERE moved_from IS NOT NULL;--> statement-breakpoint
CREATE INDEX "record_versions_content_trgm_idx" ON "record_versions" USING gin ("content" gin_trgm_ops) WHERE op <> 'delete';--> statement-breakpoint
CREATE INDEX "records_agent_live_idx" ON "records" USING btree ("agent_id","deleted_seq");