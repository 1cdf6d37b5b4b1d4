/**
 * Appending to the ledger on PostgreSQL: the atomic sequence check of the scale-out backend,
 * correct across any number of server processes. One transaction locks the agent's row
 * (`SELECT … FOR UPDATE`), so concurrent appends to one agent queue there; each compares the
 * sequence it was based on with the latest one it then reads, and only the first moves the agent
 * forward. A loser waits for the winner's commit and gets `stale_sequence` with the winner's
 * sequence. The primary key (agent_id, seq, kind) is the backstop: a writer that skipped the lock
 * still cannot put a second entry at a sequence.
 */
import type pg from 'pg';
import type { EntryKind } from '@/db/schema';
import type { PgLineageDb } from '@/db/pg/client';
import type { PgAgentRow, PgLedgerEntryRow } from '@/db/pg/schema';
import { LedgerError } from './errors';
import { echoInput } from '@/lib/core/echo';

/**
 * The append's connection, in its transaction: plain `pg` rather than drizzle, since an ingest's
 * server CPU on this path was mostly query building (drizzle's SQL objects) and round trips.
 */
export type AppendClient = pg.PoolClient;

/** What an entry records besides its place (CONTRACT: the ledger entry row). */
export interface AppendedEntry {
  id: string;
  blobKey: string;
  sha256: string;
  sizeBytes: number;
  /** Sync time, RFC 3339 UTC. */
  createdAt: string;
  /** The archive's manifest `created_at` as it has it, or null (ingest-base.ts `manifestCreatedAt`; the superseded-base rule reads it). */
  manifestCreatedAt: string | null;
}

export interface EntryCounts {
  creates: number;
  updates: number;
  deletes: number;
  moves: number;
  raw_changed: number;
  raw_deleted: number;
}

/** A delta goes at base + 1 when base is the latest; a snapshot at the place `nextSnapshotSequence` gave. */
export type AppendPlace = { kind: 'delta'; baseSequence: number } | { kind: 'snapshot'; sequence: number };

export type AppendParams = AppendPlace & {
  db: PgLineageDb;
  agentId: string;
  entry: AppendedEntry;
  /**
   * Runs inside the append's transaction once the sequence check passed (the history index's
   * seam: it indexes the entry in the same commit); its counts go on the entry row. A throw
   * rolls everything back. `agent`: the agent's row as locked, before the append moves it.
   */
  inTransaction?: (client: AppendClient, seq: number, agent: PgAgentRow) => Promise<Partial<EntryCounts> | void>;
};

/** Where a snapshot goes: 0 on the first sync, else latest (a rollover), or latest + 1 when a snapshot sits at latest. */
async function snapshotSequenceOf(db: Pick<pg.Pool, 'query'>, agent: PgAgentRow): Promise<number> {
  if (agent.latest_sequence === null) return 0;
  const atLatest = await db.query({
    name: 'lineage_snapshot_at_latest',
    text: "SELECT 1 FROM ledger_entries WHERE agent_id = $1 AND seq = $2 AND kind = 'snapshot'",
    values: [agent.id, agent.latest_sequence],
  });
  return atLatest.rows.length > 0 ? agent.latest_sequence + 1 : agent.latest_sequence;
}

const AGENT_COLUMNS = 'id, tenant_id, name, source_runtime, created_at, latest_sequence, latest_snapshot_seq';

/** The sequence a snapshot uploaded now would get (a precheck: the append checks it again under the lock). */
export async function nextSnapshotSequence(params: { db: PgLineageDb; agentId: string }): Promise<number> {
  const { rows } = await params.db.pool.query<PgAgentRow>(`SELECT ${AGENT_COLUMNS} FROM agents WHERE id = $1`, [params.agentId]);
  if (!rows[0]) throw new LedgerError('agent_not_found', `agent ${echoInput(params.agentId)} not found`);
  return snapshotSequenceOf(params.db.pool, rows[0]);
}

/** The sequence this append takes, or the error that refuses it (the agent's row is locked). */
async function placeUnderLock(client: AppendClient, agent: PgAgentRow, place: AppendPlace): Promise<number> {
  if (place.kind === 'snapshot') {
    const seq = await snapshotSequenceOf(client, agent);
    if (seq !== place.sequence) {
      throw new LedgerError('stale_sequence', `agent ${agent.id} moved to sequence ${agent.latest_sequence} during the upload`, { latest: agent.latest_sequence });
    }
    return seq;
  }
  if (agent.latest_sequence === null || agent.latest_snapshot_seq === null) {
    throw new LedgerError('no_snapshot', `agent ${agent.id} has no snapshot yet: upload a full snapshot first`);
  }
  if (place.baseSequence !== agent.latest_sequence) {
    throw new LedgerError('stale_sequence',
      `base sequence ${place.baseSequence} is not the agent's latest sequence ${agent.latest_sequence}`, { latest: agent.latest_sequence });
  }
  return place.baseSequence + 1;
}

function checkPlace(place: AppendPlace): void {
  const value = place.kind === 'delta' ? place.baseSequence : place.sequence;
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new LedgerError('invalid_input', `${place.kind === 'delta' ? 'base_sequence' : 'sequence'} must be a non-negative integer, got ${String(value)}`);
  }
}

/** A unique violation on the entry key: another writer holds this sequence. */
function isDuplicateEntry(error: unknown): boolean {
  for (let e: unknown = error; e instanceof Error; e = e.cause) {
    const pgError = e as Error & { code?: string; constraint?: string };
    if (pgError.code === '23505' && pgError.constraint === 'ledger_entries_agent_id_seq_kind_pk') return true;
  }
  return false;
}

/** The highest sequence the agent's row or its entries show (after a backstop refusal). */
async function latestSeen(db: PgLineageDb, agentId: string): Promise<number | null> {
  const { rows } = await db.pool.query<{ latest: number | null }>(`SELECT greatest(
    (SELECT latest_sequence FROM agents WHERE id = $1), (SELECT max(seq) FROM ledger_entries WHERE agent_id = $1)) AS latest`, [agentId]);
  return rows[0]?.latest ?? null;
}

const ENTRY_COLUMNS = ['id', 'agent_id', 'seq', 'kind', 'blob_key', 'sha256', 'size_bytes', 'created_at',
  'creates', 'updates', 'deletes', 'moves', 'raw_changed', 'raw_deleted', 'manifest_created_at'] as const;

/**
 * The entry's row, the agent moved forward and COMMIT, in one round trip: a simple query of two
 * statements, so the values are literals (`escapeLiteral`; the rest are integers). When the insert
 * fails (the key's backstop), PostgreSQL skips the COMMIT and the transaction is rolled back.
 */
function insertAndCommitSql(client: AppendClient, kind: EntryKind, row: Record<(typeof ENTRY_COLUMNS)[number], string | number | null>): string {
  const literal = (v: string | number | null) => (v === null ? 'NULL' : typeof v === 'number' ? String(Math.trunc(v)) : client.escapeLiteral(v));
  const moved = kind === 'snapshot' ? `latest_sequence = ${literal(row.seq)}, latest_snapshot_seq = ${literal(row.seq)}` : `latest_sequence = ${literal(row.seq)}`;
  return `WITH entry AS (INSERT INTO ledger_entries (${ENTRY_COLUMNS.join(', ')})
      VALUES (${ENTRY_COLUMNS.map((c) => literal(row[c])).join(', ')}) RETURNING ${ENTRY_COLUMNS.join(', ')}),
    moved AS (UPDATE agents SET ${moved} WHERE id = ${literal(row.agent_id)})
    SELECT * FROM entry; COMMIT`;
}

/** `BEGIN` and the agent's row locked, in one round trip (a simple query of two statements). */
async function beginLocked(client: AppendClient, agentId: string): Promise<PgAgentRow | undefined> {
  const results = await client.query(`BEGIN; SELECT ${AGENT_COLUMNS} FROM agents WHERE id = ${client.escapeLiteral(agentId)} FOR UPDATE`) as unknown as pg.QueryResult[];
  return results[1]!.rows[0] as PgAgentRow | undefined;
}

/**
 * Appends one ledger entry with the atomic sequence check and moves the agent forward.
 * Errors: `invalid_input`, `agent_not_found`, `no_snapshot`, `stale_sequence` (with `latest`).
 */
export async function appendLedgerEntry(params: AppendParams): Promise<PgLedgerEntryRow> {
  checkPlace(params);
  const { db, agentId, entry } = params;
  const client = await db.pool.connect();
  try {
    const agent = await beginLocked(client, agentId);
    if (!agent) throw new LedgerError('agent_not_found', `agent ${echoInput(agentId)} not found`);
    const seq = await placeUnderLock(client, agent, params);
    const counts = (await params.inTransaction?.(client, seq, agent)) ?? {};
    const row = { id: entry.id, agent_id: agentId, seq, kind: params.kind, blob_key: entry.blobKey, sha256: entry.sha256,
      size_bytes: entry.sizeBytes, created_at: entry.createdAt, creates: 0, updates: 0, deletes: 0, moves: 0, raw_changed: 0, raw_deleted: 0, ...counts,
      manifest_created_at: entry.manifestCreatedAt };
    const [inserted] = await client.query(insertAndCommitSql(client, params.kind, row)) as unknown as pg.QueryResult<PgLedgerEntryRow>[];
    if (!inserted?.rows[0]) throw new Error(`the insert of ledger entry ${entry.id} returned no row`);
    return inserted.rows[0];
  } catch (error) {
    // (A connection that died is dropped by the pool at release: pg-pool checks it is still queryable.)
    await client.query('ROLLBACK').catch(() => undefined);
    if (!isDuplicateEntry(error)) throw error;
    const latest = await latestSeen(db, agentId);
    throw new LedgerError('stale_sequence', `agent ${agentId} already has a ${params.kind} at that sequence (latest ${latest})`, { latest }, { cause: error });
  } finally {
    client.release();
  }
}
