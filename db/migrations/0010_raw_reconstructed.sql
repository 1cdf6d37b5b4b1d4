-- A workspace file version rendered from the records of a record-only delta (the reference CLI's
-- deltas before 0.1.10 carry no raw channel) is marked, so the viewer can say it is not raw bytes.
-- NULL for every raw-bytes version: rows written before this column existed stay right. The partial
-- index finds the few marked rows without reading an agent's whole file history.
ALTER TABLE `raw_file_versions` ADD `reconstructed` integer;--> statement-breakpoint
CREATE INDEX `raw_file_versions_reconstructed_idx` ON `raw_file_versions` (`agent_id`,`seq`) WHERE "raw_file_versions"."reconstructed" = 1;
