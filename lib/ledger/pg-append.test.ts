/** The PostgreSQL ledger append (pg-append.ts) and its migrations, against the run's real PostgreSQL 15. */
import fs from 'node:fs';
import path from 'node:path';
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migratePg, openPgDatabase, type PgLineageDb } from '@/db/pg/client';
import { agents, ledger_entries } from '@/db/pg/schema';
import { freshDatabase, usePostgres } from '@/tests/engines/use-engines';
import { isLedgerError } from './errors';
import { appendLedgerEntry, nextSnapshotSequence, type AppendedEntry } from './pg-append';

let db: PgLineageDb;
beforeAll(async () => {
  await usePostgres();
  db = await openPgDatabase(await freshDatabase());
});
afterAll(async () => db?.close());

let agentCount = 0;
async function newAgent(): Promise<string> {
  const id = `00000000-0000-4000-8000-${String(++agentCount).padStart(12, '0')}`;
  await db.db.insert(agents).values({ id, tenant_id: null, name: `agent ${agentCount}`, source_runtime: null, created_at: '2026-01-01T00:00:00.000Z' });
  return id;
}

function entry(tag: string, sizeBytes = 100): AppendedEntry {
  return { id: `entry-${tag}`, blobKey: `k/${tag}.alf`, sha256: tag.padEnd(64, '0'), sizeBytes, createdAt: '2026-01-02T00:00:00.000Z', manifestCreatedAt: null };
}

async function agentRow(id: string) {
  const [row] = await db.db.select().from(agents).where(eq(agents.id, id));
  return row;
}

async function failure(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(() => null, (error: unknown) => error);
}

describe('appendLedgerEntry on PostgreSQL', () => {
  it('a first snapshot at 0, deltas at base + 1, a rollover at latest, another snapshot at latest + 1', async () => {
    const agentId = await newAgent();
    expect(await nextSnapshotSequence({ db, agentId })).toBe(0);
    expect((await appendLedgerEntry({ db, agentId, kind: 'snapshot', sequence: 0, entry: entry(`${agentId}s0`) })).seq).toBe(0);
    expect((await appendLedgerEntry({ db, agentId, kind: 'delta', baseSequence: 0, entry: entry(`${agentId}d1`) })).seq).toBe(1);
    expect(await nextSnapshotSequence({ db, agentId })).toBe(1);
    expect((await appendLedgerEntry({ db, agentId, kind: 'snapshot', sequence: 1, entry: entry(`${agentId}s1`) })).seq).toBe(1);
    expect(await nextSnapshotSequence({ db, agentId })).toBe(2);
    expect(await agentRow(agentId)).toMatchObject({ latest_sequence: 1, latest_snapshot_seq: 1 });
  });

  it('refuses a stale base with the latest sequence, a delta before any snapshot, an unknown agent and a bad base, changing nothing', async () => {
    const agentId = await newAgent();
    expect(isLedgerError(await failure(appendLedgerEntry({ db, agentId, kind: 'delta', baseSequence: 0, entry: entry(`${agentId}x`) })), 'no_snapshot')).toBe(true);
    await appendLedgerEntry({ db, agentId, kind: 'snapshot', sequence: 0, entry: entry(`${agentId}s0`) });
    await appendLedgerEntry({ db, agentId, kind: 'delta', baseSequence: 0, entry: entry(`${agentId}d1`) });
    const stale = await failure(appendLedgerEntry({ db, agentId, kind: 'delta', baseSequence: 0, entry: entry(`${agentId}d1b`) }));
    expect(isLedgerError(stale, 'stale_sequence') && stale.latest).toBe(1);
    const staleSnapshot = await failure(appendLedgerEntry({ db, agentId, kind: 'snapshot', sequence: 0, entry: entry(`${agentId}s0b`) }));
    expect(isLedgerError(staleSnapshot, 'stale_sequence') && staleSnapshot.latest).toBe(1);
    expect(isLedgerError(await failure(appendLedgerEntry({ db, agentId: 'nobody', kind: 'snapshot', sequence: 0, entry: entry('n') })), 'agent_not_found')).toBe(true);
    for (const baseSequence of [-1, 1.5, Number.NaN]) {
      expect(isLedgerError(await failure(appendLedgerEntry({ db, agentId, kind: 'delta', baseSequence, entry: entry(`${agentId}bad`) })), 'invalid_input')).toBe(true);
    }
    expect(await db.db.select({ seq: ledger_entries.seq }).from(ledger_entries).where(eq(ledger_entries.agent_id, agentId))).toHaveLength(2);
    expect(await agentRow(agentId)).toMatchObject({ latest_sequence: 1 });
  });

  it('the (agent_id, seq, kind) key is a backstop: an entry written without the lock still blocks the sequence', async () => {
    const agentId = await newAgent();
    await appendLedgerEntry({ db, agentId, kind: 'snapshot', sequence: 0, entry: entry(`${agentId}s0`) });
    // A writer that skipped the lock and the agent update left a delta at 1.
    await db.db.insert(ledger_entries).values({
      id: `${agentId}rogue`, agent_id: agentId, seq: 1, kind: 'delta', blob_key: 'k/r.alf-delta', sha256: 'r'.repeat(64), size_bytes: 1, created_at: 'x',
    });
    const error = await failure(appendLedgerEntry({ db, agentId, kind: 'delta', baseSequence: 0, entry: entry(`${agentId}d1`) }));
    expect(isLedgerError(error, 'stale_sequence') && error.latest).toBe(1);
    expect(await agentRow(agentId)).toMatchObject({ latest_sequence: 0 });
  });

  it('work in the transaction commits with the entry, and its failure rolls the entry back', async () => {
    const agentId = await newAgent();
    await appendLedgerEntry({ db, agentId, kind: 'snapshot', sequence: 0, entry: entry(`${agentId}s0`) });
    const failed = await failure(appendLedgerEntry({
      db, agentId, kind: 'delta', baseSequence: 0, entry: entry(`${agentId}d1`),
      inTransaction: async (client) => {
        await client.query("UPDATE agents SET name = 'renamed inside' WHERE id = $1", [agentId]);
        throw new Error('indexing failed');
      },
    }));
    expect((failed as Error).message).toBe('indexing failed');
    expect(await agentRow(agentId)).toMatchObject({ latest_sequence: 0, name: expect.stringMatching(/^agent /) });
    const row = await appendLedgerEntry({
      db, agentId, kind: 'delta', baseSequence: 0, entry: entry(`${agentId}d1`),
      inTransaction: async (_tx, seq) => ({ creates: seq * 10, raw_changed: 2 }),
    });
    expect(row).toMatchObject({ seq: 1, creates: 10, raw_changed: 2, updates: 0 });
  });

  it('integers come back as numbers: a bigint size past 2^32, count(*) and sum()', async () => {
    const agentId = await newAgent();
    const row = await appendLedgerEntry({ db, agentId, kind: 'snapshot', sequence: 0, entry: entry(`${agentId}big`, 5_000_000_000) });
    expect(row.size_bytes).toBe(5_000_000_000);
    const [stats] = await db.db.select({ n: sql<number>`count(*)`, total: sql<number>`sum(${ledger_entries.size_bytes})` })
      .from(ledger_entries).where(eq(ledger_entries.agent_id, agentId));
    expect(stats).toEqual({ n: 1, total: 5_000_000_000 });
    await expect(db.pool.query('SELECT 9007199254740993::int8 AS n')).rejects.toThrow(/cannot hold exactly/);
  });
});

describe('PostgreSQL migrations', () => {
  it('servers migrating one new database at once apply every migration once: pg_trgm, then the tables', async () => {
    const url = await freshDatabase();
    await Promise.all(Array.from({ length: 4 }, () => migratePg(url)));
    await migratePg(url);
    const fresh = await openPgDatabase(url);
    try {
      const { rows: applied } = await fresh.pool.query('SELECT count(*) AS n FROM drizzle.__drizzle_migrations');
      const journal = JSON.parse(fs.readFileSync(path.resolve(process.cwd(), 'db/pg/migrations/meta/_journal.json'), 'utf8')) as { entries: unknown[] };
      expect(journal.entries.length).toBeGreaterThanOrEqual(7);
      expect(applied).toEqual([{ n: journal.entries.length }]);
      const { rows: extensions } = await fresh.pool.query("SELECT extname FROM pg_extension WHERE extname = 'pg_trgm'");
      expect(extensions).toHaveLength(1);
      const { rows: tables } = await fresh.pool.query(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY table_name");
      expect(tables.map((t) => t.table_name)).toEqual([
        'agent_day_activity', 'agents', 'api_keys', 'deleted_agent_blobs', 'deleted_agents', 'ended_sessions', 'ledger_entries', 'pending_uploads', 'raw_file_versions', 'raw_objects', 'record_facet_changes', 'record_facets', 'record_versions', 'records']);
      const { rows: gin } = await fresh.pool.query("SELECT indexdef FROM pg_indexes WHERE indexname = 'record_versions_content_trgm_idx'");
      expect(gin[0]?.indexdef).toContain('USING gin (content gin_trgm_ops) WHERE (op <> \'delete\'::text)');
      const { rows: paging } = await fresh.pool.query(
        "SELECT indexname FROM pg_indexes WHERE indexname LIKE 'record_versions_%_order_idx' OR indexname = 'record_versions_seq_op_idx' ORDER BY 1");
      expect(paging.map((r) => r.indexname)).toEqual(['record_versions_file_order_idx', 'record_versions_heading_order_idx', 'record_versions_seq_op_idx']);
    } finally {
      await fresh.close();
    }
  });
});
