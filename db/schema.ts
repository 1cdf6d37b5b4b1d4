/**
 * The one drizzle schema of ALF Lineage: agents, API keys, the ledger and the history index.
 * Times are RFC 3339 UTC text (`Date.toISOString()`), so text order is time order.
 * The FTS5 table over `record_versions.content` lives in the custom migration `*_fts.sql`.
 */
import { sql } from 'drizzle-orm';
import {
  blob, index, integer, primaryKey, sqliteTable, text, uniqueIndex,
} from 'drizzle-orm/sqlite-core';

/** An agent. `tenant_id` is the owning API key id, null for the local (CLI) tenant. */
export const agents = sqliteTable('agents', {
  id: text('id').primaryKey(),
  tenant_id: text('tenant_id'),
  name: text('name').notNull(),
  source_runtime: text('source_runtime'),
  created_at: text('created_at').notNull(),
  /** null = registered, never synced. */
  latest_sequence: integer('latest_sequence'),
  latest_snapshot_seq: integer('latest_snapshot_seq'),
}, (t) => [index('agents_tenant_idx').on(t.tenant_id)]);

/**
 * A deleted agent (migration 0019): written in the transaction that removes its row, so that blobs
 * an interrupted delete left behind are known as the deleted agent's — `lineage doctor` lists them
 * as such and never registers the agent again from them. The same id may be registered again.
 */
export const deleted_agents = sqliteTable('deleted_agents', {
  id: text('id').primaryKey(),
  tenant_id: text('tenant_id'),
  name: text('name').notNull(),
  /** The last deletion of this id. */
  deleted_at: text('deleted_at').notNull(),
});

/** Every blob key a deletion removes (each deletion of the id adds its own): what a leftover is. */
export const deleted_agent_blobs = sqliteTable('deleted_agent_blobs', {
  agent_id: text('agent_id').notNull().references(() => deleted_agents.id, { onDelete: 'cascade' }),
  blob_key: text('blob_key').notNull(),
}, (t) => [primaryKey({ columns: [t.agent_id, t.blob_key] })]);

/** API keys, stored hashed; a key's id is its tenant id. */
export const api_keys = sqliteTable('api_keys', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  key_hash: text('key_hash').notNull().unique(),
  created_at: text('created_at').notNull(),
  /** 1 for a key made with `lineage keys create --admin`: it sees every tenant in the dashboard. */
  admin: integer('admin').notNull().default(0),
});

/**
 * Dashboard sessions ended by sign-out (migration 0021): a session cookie naming one of these ids
 * is refused until `expires_at` (unix seconds, the cookie's own expiry); later rows are forgotten.
 */
export const ended_sessions = sqliteTable('ended_sessions', {
  id: text('id').primaryKey(),
  expires_at: integer('expires_at').notNull(),
}, (t) => [index('ended_sessions_expires_at').on(t.expires_at)]);

export const ENTRY_KINDS = ['snapshot', 'delta'] as const;
export type EntryKind = (typeof ENTRY_KINDS)[number];
/**
 * `move`: the version a record is created with when it is another record moved unchanged from
 * another file in the same sync (`moved_from` = that record). A `delete` is only ever a deletion.
 */
export const RECORD_OPS = ['create', 'update', 'delete', 'move'] as const;
export type RecordOp = (typeof RECORD_OPS)[number];

/**
 * One archive in the ledger. A rollover snapshot sits at the sequence of the delta it follows,
 * so the key is (agent_id, seq, kind); at one sequence the delta comes before the snapshot.
 */
export const ledger_entries = sqliteTable('ledger_entries', {
  id: text('id').notNull().unique(),
  agent_id: text('agent_id').notNull().references(() => agents.id, { onDelete: 'cascade' }),
  seq: integer('seq').notNull(),
  kind: text('kind', { enum: ENTRY_KINDS }).notNull(),
  blob_key: text('blob_key').notNull(),
  sha256: text('sha256').notNull(),
  size_bytes: integer('size_bytes').notNull(),
  /** Sync time. */
  created_at: text('created_at').notNull(),
  creates: integer('creates').notNull().default(0),
  updates: integer('updates').notNull().default(0),
  deletes: integer('deletes').notNull().default(0),
  /** Moves: neither their create half nor their delete half is counted in `creates` / `deletes`. */
  moves: integer('moves').notNull().default(0),
  raw_changed: integer('raw_changed').notNull().default(0),
  raw_deleted: integer('raw_deleted').notNull().default(0),
  /**
   * The archive's own manifest `created_at` (a snapshot's `manifest.json`, a delta's
   * `delta-manifest.json`), exactly as the manifest has it, written with the entry (migration 0020):
   * what the superseded-base rule compares a delta's `sync.base_timestamp` with
   * (lib/ledger/ingest-base.ts), read here instead of from the blob. NULL for an entry appended
   * before the column (its blob is read then, and the column filled by the next append on it), or
   * a manifest without a string `created_at`.
   */
  manifest_created_at: text('manifest_created_at'),
}, (t) => [
  primaryKey({ columns: [t.agent_id, t.seq, t.kind] }),
  // Covering the op counts: the fleet's 28-day activity is summed from this index alone (migration 0013).
  index('ledger_entries_agent_time_idx').on(t.agent_id, t.created_at, t.creates, t.updates, t.deletes, t.moves),
  index('ledger_entries_time_idx').on(t.created_at),
]);

/**
 * A ledger entry appended without being folded into the history index yet (migration 0018,
 * lib/history/pending-index.ts): readers and ingest fold these first; the fold removes the row.
 */
export const index_pending = sqliteTable('index_pending', {
  agent_id: text('agent_id').notNull().references(() => agents.id, { onDelete: 'cascade' }),
  seq: integer('seq').notNull(),
  kind: text('kind', { enum: ENTRY_KINDS }).notNull(),
}, (t) => [primaryKey({ columns: [t.agent_id, t.seq, t.kind] })]);

/**
 * One row per record per ledger entry in which it changed. `id` is a stable integer rowid for the
 * FTS5 external-content table; the natural key is (agent_id, record_id, seq, entry_kind).
 * A delete row is the tombstone and carries the previous content. A move is one row: the moved-to
 * record's version with op `move` and `moved_from` = the moved-from record, which gets no row at
 * that sequence (its `records` row has `deleted_seq` = `last_seq` = the move's sequence).
 */
export const record_versions = sqliteTable('record_versions', {
  id: integer('id').primaryKey(),
  agent_id: text('agent_id').notNull().references(() => agents.id, { onDelete: 'cascade' }),
  record_id: text('record_id').notNull(),
  seq: integer('seq').notNull(),
  entry_kind: text('entry_kind', { enum: ENTRY_KINDS }).notNull(),
  op: text('op', { enum: RECORD_OPS }).notNull(),
  content: text('content').notNull(),
  content_sha256: text('content_sha256').notNull(),
  memory_type: text('memory_type').notNull(),
  namespace: text('namespace').notNull(),
  status: text('status').notNull(),
  origin_file: text('origin_file'),
  heading: text('heading'),
  /** JSON array text. */
  tags: text('tags').notNull(),
  /** The full record JSON (canonical). */
  record_json: text('record_json').notNull(),
  created_at: text('created_at'),
  updated_at: text('updated_at'),
  observed_at: text('observed_at'),
  synced_at: text('synced_at').notNull(),
  moved_from: text('moved_from'),
}, (t) => [
  uniqueIndex('record_versions_key_idx').on(t.agent_id, t.record_id, t.seq, t.entry_kind),
  index('record_versions_agent_seq_idx').on(t.agent_id, t.seq),
  index('record_versions_agent_synced_idx').on(t.agent_id, t.synced_at),
  index('record_versions_synced_idx').on(t.synced_at),
  index('record_versions_moved_from_idx').on(t.agent_id, t.moved_from).where(sql`moved_from IS NOT NULL`),
  // Keyset paging (each ends in the rowid): a sequence's ops of one kind; the Memories list by file and by heading.
  index('record_versions_seq_op_idx').on(t.agent_id, t.seq, t.op, t.entry_kind),
  index('record_versions_file_order_idx').on(t.agent_id, sql`coalesce(${t.origin_file}, '')`),
  index('record_versions_heading_order_idx').on(t.agent_id, sql`coalesce(${t.heading}, '')`),
  // What a search reads of each of its hits, narrow (migration 0015: thousands of hits without the wide rows).
  index('record_versions_hits_idx').on(t.id, t.agent_id, t.record_id, t.seq, t.entry_kind, t.op, t.synced_at).where(sql`op <> 'delete'`),
  // A sequence's ops counted per file from the index alone (migration 0013: 50,000 ops in a few ms).
  index('record_versions_seq_file_idx').on(t.agent_id, t.seq, t.entry_kind, t.origin_file),
  // A record's version at the earlier end of a comparison, found and read in one seek (migration 0017).
  index('record_versions_state_idx').on(t.agent_id, t.record_id, t.seq, t.entry_kind, t.op, t.content_sha256),
]);

/**
 * Every record ever seen: its birth, its latest change and its deletion. Its current fields
 * (content, type, file, canonical JSON, …; a deleted record's last ones) are those of its latest
 * version — the `record_versions` row at `last_seq` (the later entry kind when a sequence holds
 * two) — and are read from there, not stored twice. A record moved away (to another record, in
 * another file) is not live from the move on: `deleted_seq` = `last_seq` = the move's sequence,
 * and its latest version is the one before (the move's row belongs to the record it moved to).
 */
export const records = sqliteTable('records', {
  agent_id: text('agent_id').notNull().references(() => agents.id, { onDelete: 'cascade' }),
  record_id: text('record_id').notNull(),
  first_seq: integer('first_seq').notNull(),
  last_seq: integer('last_seq').notNull(),
  deleted_seq: integer('deleted_seq'),
  born_at: text('born_at').notNull(),
  last_changed_at: text('last_changed_at').notNull(),
}, (t) => [
  primaryKey({ columns: [t.agent_id, t.record_id] }),
  index('records_agent_live_idx').on(t.agent_id, t.deleted_seq),
  // The records an agent changed since a time, counted from the index alone (the fleet's week of changes).
  index('records_agent_changed_idx').on(t.agent_id, t.last_changed_at),
]);

/**
 * The facet counts of each agent's live records at its latest sequence, kept by the indexer in the
 * ingest's transaction (lib/history/live-facets.ts), so the Memories list's filters and totals are
 * read, not counted over every live record. `facet` ∈ `live` (value '': how many records are live),
 * `memory_type`, `namespace`, `status`, `file` (origin_file; records without one are `live` minus
 * the files' counts), `tier` (each distinct `tier:X` tag of a record counts it once under X).
 * No row has a count of 0; a rebuild writes the same rows as the incremental indexer.
 */
export const record_facets = sqliteTable('record_facets', {
  agent_id: text('agent_id').notNull().references(() => agents.id, { onDelete: 'cascade' }),
  facet: text('facet', { enum: ['live', 'memory_type', 'namespace', 'status', 'file', 'tier'] }).notNull(),
  value: text('value').notNull(),
  count: integer('count').notNull(),
}, (t) => [primaryKey({ columns: [t.agent_id, t.facet, t.value] })]);

/**
 * How each sequence changed an agent's live-facet counters (`record_facets`): per (sequence, facet,
 * value) the sum of that sequence's `liveFacetDelta`s, rows summing to 0 left out. The counters at
 * sequence N are the sums up to N, so the Memories list at an earlier sequence reads its facets and
 * totals here instead of working out every record's version there. Kept by the indexer beside the
 * counters (in the same transaction); a rebuild writes the same rows. WITHOUT ROWID (migration 0016).
 */
export const record_facet_changes = sqliteTable('record_facet_changes', {
  agent_id: text('agent_id').notNull().references(() => agents.id, { onDelete: 'cascade' }),
  seq: integer('seq').notNull(),
  facet: text('facet', { enum: ['live', 'memory_type', 'namespace', 'status', 'file', 'tier'] }).notNull(),
  value: text('value').notNull(),
  change: integer('change').notNull(),
}, (t) => [primaryKey({ columns: [t.agent_id, t.seq, t.facet, t.value] })]);

/**
 * Each agent's op counts per UTC day of its ledger entries' `created_at` (the sums of the entries'
 * creates/updates/deletes/moves), kept by triggers on `ledger_entries` (migration 0014) on every
 * insert, update of the counts and delete, so every path that writes entries — ingest, rebuild,
 * import, migration between backends — keeps it; the fleet's 28-day activity reads 28 rows per agent,
 * not every entry. A day whose entries were all deleted keeps a row of zeros.
 */
export const agent_day_activity = sqliteTable('agent_day_activity', {
  agent_id: text('agent_id').notNull().references(() => agents.id, { onDelete: 'cascade' }),
  day: text('day').notNull(),
  creates: integer('creates').notNull().default(0),
  updates: integer('updates').notNull().default(0),
  deletes: integer('deletes').notNull().default(0),
  moves: integer('moves').notNull().default(0),
}, (t) => [primaryKey({ columns: [t.agent_id, t.day] })]);

/**
 * Content-addressed raw file bytes, so workspace views never open archives. The index on each
 * object's stored length lets the rebuild check every object's length against its `size` without
 * reading the table (a page or more per object).
 */
export const raw_objects = sqliteTable('raw_objects', {
  sha256: text('sha256').primaryKey(),
  size: integer('size').notNull(),
  data: blob('data', { mode: 'buffer' }).notNull(),
}, (t) => [index('raw_objects_length_idx').on(t.sha256, t.size, sql`length(${t.data})`)]);

/**
 * One row per raw workspace file per ledger entry in which it changed or was deleted. `path` is
 * relative to `raw/<runtime>/`. The workspace at N = per path, the latest row with seq <= N.
 */
export const raw_file_versions = sqliteTable('raw_file_versions', {
  agent_id: text('agent_id').notNull().references(() => agents.id, { onDelete: 'cascade' }),
  path: text('path').notNull(),
  seq: integer('seq').notNull(),
  entry_kind: text('entry_kind', { enum: ENTRY_KINDS }).notNull(),
  sha256: text('sha256'),
  size: integer('size').notNull(),
  deleted: integer('deleted').notNull(),
  /** 1 when the bytes were rendered from the records of a record-only delta (not raw bytes); else NULL. */
  reconstructed: integer('reconstructed'),
}, (t) => [
  primaryKey({ columns: [t.agent_id, t.path, t.seq, t.entry_kind] }),
  index('raw_file_versions_agent_seq_idx').on(t.agent_id, t.seq),
  index('raw_file_versions_sha_idx').on(t.sha256),
  index('raw_file_versions_reconstructed_idx').on(t.agent_id, t.seq).where(sql`${t.reconstructed} = 1`),
]);

export type AgentRow = typeof agents.$inferSelect;
export type ApiKeyRow = typeof api_keys.$inferSelect;
export type DeletedAgentRow = typeof deleted_agents.$inferSelect;
export type DeletedAgentBlobRow = typeof deleted_agent_blobs.$inferSelect;
export type LedgerEntryRow = typeof ledger_entries.$inferSelect;
export type RecordVersionRow = typeof record_versions.$inferSelect;
export type NewRecordVersion = typeof record_versions.$inferInsert;
export type RecordRow = typeof records.$inferSelect;
export type RawFileVersionRow = typeof raw_file_versions.$inferSelect;
export type RecordFacetRow = typeof record_facets.$inferSelect;
