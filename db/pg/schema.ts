/**
 * The ledger's tables on PostgreSQL (the scale-out backend), column for column those of
 * db/schema.ts: agents, API keys, ledger entries. Times stay RFC 3339 UTC text, so text order is
 * time order on both backends (the cluster runs with the C.UTF-8 collation, which sorts like
 * SQLite's BINARY). Migrations: `npm run db:generate:pg` into db/pg/migrations; the first one is
 * the custom `CREATE EXTENSION pg_trgm` the history index's search will need.
 */
import { bigint, index, integer, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { ENTRY_KINDS } from '../schema';

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

/** API keys, stored hashed; a key's id is its tenant id. */
export const api_keys = pgTable('api_keys', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  key_hash: text('key_hash').notNull().unique(),
  created_at: text('created_at').notNull(),
});

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
  raw_changed: integer('raw_changed').notNull().default(0),
  raw_deleted: integer('raw_deleted').notNull().default(0),
}, (t) => [
  primaryKey({ columns: [t.agent_id, t.seq, t.kind] }),
  index('ledger_entries_agent_time_idx').on(t.agent_id, t.created_at),
  index('ledger_entries_time_idx').on(t.created_at),
]);

export type PgAgentRow = typeof agents.$inferSelect;
export type PgLedgerEntryRow = typeof ledger_entries.$inferSelect;
