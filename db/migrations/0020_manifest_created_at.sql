-- The archive's own manifest `created_at` on each ledger entry (lib/ledger/ingest-base.ts): the superseded-base rule
-- compares a delta's `sync.base_timestamp` with the `created_at` of the entry at its base sequence, and reads it here
-- instead of inflating that entry's blob. Written by every append from now on. Entries appended before stay NULL (the
-- value is only in their blobs, which a migration does not read): the rule reads the blob for them, as before, and the
-- next delta appended onto such an entry fills it in its own transaction.
ALTER TABLE `ledger_entries` ADD `manifest_created_at` text;
