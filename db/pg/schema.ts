/**
 * The tables on PostgreSQL (the scale-out backend), column for column those of db/schema.ts:
 * agents, API keys, ledger entries and the history index, plus what the embedded backend keeps
 * outside its database (sessions, pending uploads). Times stay RFC 3339 UTC text, so text order is
 * time order on both backends (the cluster runs with the C.UTF-8 collation, which sorts like
 * SQLite's BINARY). Migrations: `npm run db:generate:pg` into db/pg/migrations; the first one is
 * the custom `CREATE EXTENSION pg_trgm` the history index's search will need.
 */
import { sql } from 'drizzle-orm';
import {
  bigint, bigserial, customType, index, integer, pgTable, primaryKey, text, uniqueIndex,
} from 'drizzle-orm/pg-core';
import { ENTRY_KINDS, RECORD_OPS } from '../schema';

/** bytea as a Buffer (raw workspace bytes). */
const bytea = customType<{ data: Buffer; driverData: Buffer }>({ dataType: () => 'bytea' });

/** An agent. `tenant_id` is the owning API key id, null for the local (CLI) tenant. */
export const agents = pgTable('agents', {
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
 * A deleted agent (pg migration 0007, as SQLite's 0019): written in the transaction that removes its row, so that blobs
 * an interrupted delete left behind are known as the deleted agent's — `lineage doctor` lists them
 * as such and never registers the agent again from them. The same id may be registered again.
 */
export const deleted_agents = pgTable('deleted_agents', {
  id: text('id').primaryKey(),
  tenant_id: text('tenant_id'),
  name: text('name').notNull(),
  /** The last deletion of this id. */
  deleted_at: text('deleted_at').notNull(),
});

/** Every blob key a deletion removes (each deletion of the id adds its own): what a leftover is. */
export const deleted_agent_blobs = pgTable('deleted_agent_blobs', {
  agent_id: text('agent_id').notNull().references(() => deleted_agents.id, { onDelete: 'cascade' }),
  blob_key: text('blob_key').notNull(),
}, (t) => [primaryKey({ columns: [t.agent_id, t.blob_key] })]);

/** API keys, stored hashed; a key's id is its tenant id. */
export const api_keys = pgTable('api_keys', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  key_hash: text('key_hash').notNull().unique(),
  created_at: text('created_at').notNull(),
  /** 1 for an admin key (sees every tenant in the dashboard), as in SQLite. */
  admin: integer('admin').notNull().default(0),
});

/** Dashboard sessions ended by sign-out, as in SQLite (migration 0009). */
export const ended_sessions = pgTable('ended_sessions', {
  id: text('id').primaryKey(),
  expires_at: bigint('expires_at', { mode: 'number' }).notNull(),
}, (t) => [index('ended_sessions_expires_at').on(t.expires_at)]);

/**
 * One archive in the ledger. A rollover snapshot sits at the sequence of the delta it follows, so
 * the key is (agent_id, seq, kind): it is also the append's backstop, since two deltas (or two
 * snapshots) can never share a sequence, whatever a writer forgot to lock.
 */
export const ledger_entries = pgTable('ledger_entries', {
  id: text('id').notNull().unique(),
  agent_id: text('agent_id').notNull().references(() => agents.id, { onDelete: 'cascade' }),
  seq: integer('seq').notNull(),
  kind: text('kind', { enum: ENTRY_KINDS }).notNull(),
  blob_key: text('blob_key').notNull(),
  sha256: text('sha256').notNull(),
  /** int8 (an archive may pass 2 GiB), read back as a number. */
  size_bytes: bigint('size_bytes', { mode: 'number' }).notNull(),
  /** Sync time. */
  created_at: text('created_at').notNull(),
  creates: integer('creates').notNull().default(0),
  updates: integer('updates').notNull().default(0),
  deletes: integer('deletes').notNull().default(0),
  moves: integer('moves').notNull().default(0),
  raw_changed: integer('raw_changed').notNull().default(0),
  raw_deleted: integer('raw_deleted').notNull().default(0),
  /** The archive's manifest `created_at` as the manifest has it (db/schema.ts; migration 0008); NULL for an entry appended before it. */
  manifest_created_at: text('manifest_created_at'),
}, (t) => [
  primaryKey({ columns: [t.agent_id, t.seq, t.kind] }),
  index('ledger_entries_agent_time_idx').on(t.agent_id, t.created_at),
  index('ledger_entries_time_idx').on(t.created_at),
]);

/**
 * One row per record per ledger entry in which it changed (db/schema.ts). `id` is an identity
 * column standing in for SQLite's rowid: insertion order, used only to join a version to its
 * record's latest one. Search reads the versions that are not tombstones through the trigram GIN
 * index on `content` (the FTS5 table's counterpart; pg_trgm comes from migration 0000).
 */
export const record_versions = pgTable('record_versions', {
  id: bigserial('id', { mode: 'number' }).primaryKey(),
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
  tags: text('tags').notNull(),
  record_json: text('record_json').notNull(),
  created_at: text('created_at'),
  updated_at: text('updated_at'),
  observed_at: text('observed_at'),
  synced_at: text('synced_at').notNull(),
  moved_from: text('moved_from'),
}, (t) => [
  uniqueIndex('record_versions_key_idx').on(t.agent_id, t.record_id, t.seq, t.entry_kind),
  // SQLite's indexes end in the rowid; here `id` ends the ones keyset pages walk ((key, id) cursors, migration 0003).
  index('record_versions_agent_seq_idx').on(t.agent_id, t.seq, t.id),
  index('record_versions_agent_synced_idx').on(t.agent_id, t.synced_at, t.id),
  index('record_versions_synced_idx').on(t.synced_at, t.id),
  // db/migrations/0012_list_paging_indexes.sql: a sequence's ops of one kind in (entry_kind, id) order, and the
  // Memories list by file and by heading; text in byte order (the queries say COLLATE "C").
  index('record_versions_seq_op_idx').on(t.agent_id, t.seq, t.op, sql`${t.entry_kind} COLLATE "C"`, t.id),
  index('record_versions_file_order_idx').on(t.agent_id, sql`(coalesce(${t.origin_file}, '') COLLATE "C")`, t.id),
  index('record_versions_heading_order_idx').on(t.agent_id, sql`(coalesce(${t.heading}, '') COLLATE "C")`, t.id),
  index('record_versions_moved_from_idx').on(t.agent_id, t.moved_from).where(sql`moved_from IS NOT NULL`),
  index('record_versions_content_trgm_idx').using('gin', sql`${t.content} gin_trgm_ops`).where(sql`op <> 'delete'`),
  // db/migrations/0013_live_facets.sql: a sequence's ops counted per file from the index.
  index('record_versions_seq_file_idx').on(t.agent_id, t.seq, sql`${t.entry_kind} COLLATE "C"`, sql`${t.origin_file} COLLATE "C"`),
]);

/** Every record ever seen: birth, latest change, deletion (its current fields are its latest version's). */
export const records = pgTable('records', {
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
  index('records_agent_changed_idx').on(t.agent_id, t.last_changed_at),
]);

/**
 * The facet counts of each agent's live records at its latest sequence (db/schema.ts `record_facets`), kept
 * by the fold (lib/history/live-facets.ts) in the append's transaction.
 */
export const record_facets = pgTable('record_facets', {
  agent_id: text('agent_id').notNull().references(() => agents.id, { onDelete: 'cascade' }),
  facet: text('facet', { enum: ['live', 'memory_type', 'namespace', 'status', 'file', 'tier'] }).notNull(),
  value: text('value').notNull(),
  count: integer('count').notNull(),
}, (t) => [primaryKey({ columns: [t.agent_id, t.facet, t.value] })]);

/** How each sequence changed an agent's live-facet counters (db/schema.ts `record_facet_changes`), kept by the fold. */
export const record_facet_changes = pgTable('record_facet_changes', {
  agent_id: text('agent_id').notNull().references(() => agents.id, { onDelete: 'cascade' }),
  seq: integer('seq').notNull(),
  facet: text('facet', { enum: ['live', 'memory_type', 'namespace', 'status', 'file', 'tier'] }).notNull(),
  value: text('value').notNull(),
  change: integer('change').notNull(),
}, (t) => [primaryKey({ columns: [t.agent_id, t.seq, t.facet, t.value] })]);

/** Each agent's op counts per UTC day of its entries (db/schema.ts `agent_day_activity`), kept by triggers on ledger_entries. */
export const agent_day_activity = pgTable('agent_day_activity', {
  agent_id: text('agent_id').notNull().references(() => agents.id, { onDelete: 'cascade' }),
  day: text('day').notNull(),
  creates: integer('creates').notNull().default(0),
  updates: integer('updates').notNull().default(0),
  deletes: integer('deletes').notNull().default(0),
  moves: integer('moves').notNull().default(0),
}, (t) => [primaryKey({ columns: [t.agent_id, t.day] })]);

/** Content-addressed raw file bytes. */
export const raw_objects = pgTable('raw_objects', {
  sha256: text('sha256').primaryKey(),
  size: bigint('size', { mode: 'number' }).notNull(),
  data: bytea('data').notNull(),
});

/** One row per raw workspace file per ledger entry in which it changed or was deleted. */
export const raw_file_versions = pgTable('raw_file_versions', {
  agent_id: text('agent_id').notNull().references(() => agents.id, { onDelete: 'cascade' }),
  path: text('path').notNull(),
  seq: integer('seq').notNull(),
  entry_kind: text('entry_kind', { enum: ENTRY_KINDS }).notNull(),
  sha256: text('sha256'),
  size: bigint('size', { mode: 'number' }).notNull(),
  deleted: integer('deleted').notNull(),
  /** 1 when rendered from the records of a record-only delta; else NULL. */
  reconstructed: integer('reconstructed'),
}, (t) => [
  primaryKey({ columns: [t.agent_id, t.path, t.seq, t.entry_kind] }),
  index('raw_file_versions_agent_seq_idx').on(t.agent_id, t.seq),
  index('raw_file_versions_sha_idx').on(t.sha256),
  index('raw_file_versions_reconstructed_idx').on(t.agent_id, t.seq).where(sql`${t.reconstructed} = 1`),
]);

/**
 * Presigned uploads between initiate and confirm (lib/server/upload-store.ts keeps them in
 * memory in one process): the staged object lives under the bucket's staging prefix, this row says
 * whose it is and what it may become, so a confirm can reach any process. (Sessions need no table
 * on either backend: a session is a signed cookie checked against `api_keys`.)
 */
export const pending_uploads = pgTable('pending_uploads', {
  id: text('id').primaryKey(),
  agent_id: text('agent_id').notNull(),
  tenant_id: text('tenant_id').notNull(),
  kind: text('kind', { enum: ENTRY_KINDS }).notNull(),
  base_sequence: integer('base_sequence'),
  expires_at: text('expires_at').notNull(),
  /** Once confirmed: the reply every later confirm answers with (the idempotent confirm). */
  confirmed_status: integer('confirmed_status'),
  confirmed_body: text('confirmed_body'),
}, (t) => [index('pending_uploads_expires_idx').on(t.expires_at)]);

export type PgAgentRow = typeof agents.$inferSelect;
export type PgLedgerEntryRow = typeof ledger_entries.$inferSelect;
export type PgPendingUploadRow = typeof pending_uploads.$inferSelect;
