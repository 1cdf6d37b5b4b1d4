-- db/migrations/0020_manifest_created_at.sql on PostgreSQL: the archive's own manifest `created_at` on each ledger
-- entry, read by the superseded-base rule instead of the entry's blob (an S3 GET per delta). Entries appended before
-- stay NULL (the value is only in their blobs): the rule reads the blob for them, as before, and the next delta
-- appended onto such an entry fills it in its own transaction.
ALTER TABLE "ledger_entries" ADD COLUMN "manifest_created_at" text;
