/**
 * Appending to the ledger on PostgreSQL: the atomic sequence check of the scale-out backend,
 * correct across any number of server processes. One transaction locks the agent's row
 * (`SELECT … FOR UPDATE`), so concurrent appends to one agent queue there; each compares the
 * sequence it was based on with the latest one it then reads, and only the first moves the agent
 * forward. A loser waits for the winner's commit and gets `stale_sequence` with the winner's
 * sequence. The primary key (agent_id, seq, kind) is the backstop: a writer that skipped the lock
 * still cannot put a second entry at a sequence.
 */
import { and, eq, sql } from 'drizzle-orm';
import type { EntryKind } from '@/db/schema';
import type { PgLineageDb } from '@/db/pg/client';
import { agents, ledger_entries, type PgAgentRow, type PgLedgerEntryRow } from '@/db/pg/schema';
import { LedgerError } from './errors';

type Transaction = Parameters<Parameters<PgLineageDb['db']['transaction']>[0]>[0];

/** What an entry records besides its place (CONTRACT: the ledger entry row). */
export interface AppendedEntry {
  id: string;
  blobKey: string;
  sha256: string;
  sizeBytes: number;
  /** Sync time, RFC 3339 UTC. */
  createdAt: string;
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
   * rolls everything back.
   */
  inTransaction?: (tx: Transaction, seq: number) => Promise<Partial<EntryCounts> | void>;
};

/** Where a snapshot goes: 0 on the first sync, else latest (a rollover), or latest + 1 when a snapshot sits at latest. */
async function snapshotSequenceOf(tx: Pick<Transaction, 'select'>, agent: PgAgentRow): Promise<number> {
  if (agent.latest_sequence === null) return 0;
  const atLatest = await tx.select({ one: sql<number>`1` }).from(ledger_entries).where(and(
    eq(ledger_entries.agent_id, agent.id), eq(ledger_entries.seq, agent.latest_sequence), eq(ledger_entries.kind, 'snapshot'),
  ));
  return atLatest.length > 0 ? agent.latest_sequence + 1 : agent.latest_sequence;
}

/** The sequence a snapshot uploaded now would get (a precheck: the append checks it again under the lock). */
export async function nextSnapshotSequence(params: { db: PgLineageDb; agentId: string }): Promise<number> {
  const [agent] = await params.db.db.select().from(agents).where(eq(agents.id, params.agentId));
  if (!agent) throw new LedgerError('agent_not_found', `agent ${params.agentId} not found`);
  return snapshotSequenceOf(params.db.db, agent);
}

/** The sequence this append takes, or the error that refuses it (the agent's row is locked). */
async function placeUnderLock(tx: Transaction, agent: PgAgentRow, place: AppendPlace): Promise<number> {
  if (place.kind === 'snapshot') {
    const seq = await snapshotSequenceOf(tx, agent);
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

/**
 * Appends one ledger entry with the atomic sequence check and moves the agent forward.
 * Errors: `invalid_input`, `agent_not_found`, `no_snapshot`, `stale_sequence` (with `latest`).
 */
export async function appendLedgerEntry(params: AppendParams): Promise<PgLedgerEntryRow> {
  checkPlace(params);
  const { db, agentId, entry } = params;
  try {
    return await db.db.transaction(async (tx) => {
      const [agent] = await tx.select().from(agents).where(eq(agents.id, agentId)).for('update');
      if (!agent) throw new LedgerError('agent_not_found', `agent ${agentId} not found`);
      const seq = await placeUnderLock(tx, agent, params);
      const counts = (await params.inTransaction?.(tx, seq)) ?? {};
      const [row] = await tx.insert(ledger_entries).values({
        id: entry.id, agent_id: agentId, seq, kind: params.kind satisfies EntryKind, blob_key: entry.blobKey,
        sha256: entry.sha256, size_bytes: entry.sizeBytes, created_at: entry.createdAt, ...counts,
      }).returning();
      await tx.update(agents).set(params.kind === 'snapshot' ? { latest_sequence: seq, latest_snapshot_seq: seq } : { latest_sequence: seq })
        .where(eq(agents.id, agentId));
      if (!row) throw new Error(`the insert of ledger entry ${entry.id} returned no row`);
      return row;
    });
  } catch (error) {
    if (!isDuplicateEntry(error)) throw error;
    const latest = await latestSeen(db, agentId);
    throw new LedgerError('stale_sequence', `agent ${agentId} already has a ${params.kind} at that sequence (latest ${latest})`, { latest }, { cause: error });
  }
}
