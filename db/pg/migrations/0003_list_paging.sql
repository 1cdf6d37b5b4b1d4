-- Keyset paging (db/migrations/0012_list_paging_indexes.sql on SQLite): the ops, file- and heading-order indexes, and
-- `id` (SQLite's implicit rowid) ending the indexes the (key, id) cursors walk.
DROP INDEX "record_versions_agent_seq_idx";--> statement-breakpoint
DROP INDEX "record_versions_agent_synced_idx";--> statement-breakpoint
DROP INDEX "record_versions_synced_idx";--> statement-breakpoint
CREATE INDEX "record_versions_seq_op_idx" ON "record_versions" USING btree ("agent_id","seq","op","entry_kind" COLLATE "C","id");--> statement-breakpoint
CREATE INDEX "record_versions_file_order_idx" ON "record_versions" USING btree ("agent_id",(coalesce("origin_file", '') COLLATE "C"),"id");--> statement-breakpoint
CREATE INDEX "record_versions_heading_order_idx" ON "record_versions" USING btree ("agent_id",(coalesce("heading", '') COLLATE "C"),"id");--> statement-breakpoint
CREATE INDEX "record_versions_agent_seq_idx" ON "record_versions" USING btree ("agent_id","seq","id");--> statement-breakpoint
CREATE INDEX "record_versions_agent_synced_idx" ON "record_versions" USING btree ("agent_id","synced_at","id");--> statement-breakpoint
CREATE INDEX "record_versions_synced_idx" ON "record_versions" USING btree ("synced_at","id");