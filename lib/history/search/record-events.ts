/**
 * What a fact's status (status.ts) needs from a matched record's history beyond its matching
 * versions, looked up one record at a time on the key and moves indexes, so that a broad query's
 * thousands of records are never read whole: the event that follows a version, and whether a later
 * entry at the same sequence hides a version.
 */
import type { LineageDb } from '@/db/client';

/** What follows a version in its record's timeline: the next version, or a move away before it. */
export interface NextEvent {
  seq: number;
  /** The event's op (`moved` for a move away), read from the database only when asked for. */
  readonly op: string;
}

export interface RecordEvents {
  /** The record's next event after sequence `seq`, or null when nothing follows (it holds what it held). */
  after(agentId: string, recordId: string, seq: number): NextEvent | null;
  /** Whether the record has a later entry at `seq` than `entryKind` (the last entry of a sequence is the one that counts). */
  hidden(agentId: string, recordId: string, seq: number, entryKind: string): boolean;
}

type Statements = ReturnType<typeof prepare>;

function prepare(sqlite: LineageDb['sqlite']) {
  return {
    nextSeq: sqlite.prepare('SELECT min(seq) FROM record_versions WHERE agent_id = ? AND record_id = ? AND seq > ?').pluck(),
    // Named: for a record with no moves the planner would otherwise walk the agent's later sequences.
    nextMove: sqlite.prepare(`SELECT min(seq) FROM record_versions INDEXED BY record_versions_moved_from_idx
      WHERE agent_id = ? AND moved_from = ? AND moved_from IS NOT NULL AND op = 'move' AND seq > ?`).pluck(),
    lastOp: sqlite.prepare('SELECT op FROM record_versions WHERE agent_id = ? AND record_id = ? AND seq = ? ORDER BY entry_kind DESC LIMIT 1').pluck(),
    later: sqlite.prepare('SELECT 1 FROM record_versions WHERE agent_id = ? AND record_id = ? AND seq = ? AND entry_kind > ? LIMIT 1').pluck(),
    moveSource: sqlite.prepare('SELECT 1 FROM record_versions WHERE agent_id = ? AND moved_from = ? AND seq = ? LIMIT 1').pluck(),
    // The key is (agent, seq, kind) and a kind is a delta or a snapshot, so a sequence has two entries
    // exactly when a (rollover) snapshot sits beside a delta: only the agents' few snapshots are looked
    // at, not every entry grouped.
    shared: sqlite.prepare(`SELECT s.agent_id, s.seq FROM ledger_entries s
      WHERE s.agent_id IN (SELECT value FROM json_each(?)) AND s.kind = 'snapshot'
        AND EXISTS (SELECT 1 FROM ledger_entries d WHERE d.agent_id = s.agent_id AND d.seq = s.seq AND d.kind <> s.kind)`).raw(),
    latest: sqlite.prepare('SELECT id, latest_sequence FROM agents WHERE id IN (SELECT value FROM json_each(?))').raw(),
  };
}

const cache = new WeakMap<LineageDb['sqlite'], Statements>();

/** The search's prepared statements of `db`, built on first use: preparing them on every search cost more than a narrow search's lookups. */
function statements(db: LineageDb): Statements {
  let found = cache.get(db.sqlite);
  if (!found) cache.set(db.sqlite, (found = prepare(db.sqlite)));
  return found;
}

export function recordEvents(db: LineageDb): RecordEvents {
  const { nextSeq, nextMove, lastOp, later } = statements(db);
  return {
    after(agentId, recordId, seq) {
      const version = nextSeq.get(agentId, recordId, seq) as number | null;
      const move = nextMove.get(agentId, recordId, seq) as number | null;
      // A move at a sequence where the record has a version is that version.
      if (move !== null && (version === null || move < version)) return { seq: move, op: 'moved' };
      if (version === null) return null;
      let op: string | undefined;
      return { seq: version, get op() { return (op ??= lastOp.get(agentId, recordId, version) as string); } };
    },
    hidden: (agentId, recordId, seq, entryKind) => later.get(agentId, recordId, seq, entryKind) !== undefined,
  };
}

/**
 * Each agent's sequences with more than one ledger entry: the only places a record can have two
 * entries at one sequence, so the only hits `hidden` must be asked about. Agents without any are
 * left out, so most hits are let through on one map lookup.
 */
export function sharedSequences(db: LineageDb, agentIds: readonly string[]): Map<string, Set<number>> {
  const shared = new Map<string, Set<number>>();
  if (agentIds.length === 0) return shared;
  const rows = statements(db).shared.all(JSON.stringify(agentIds)) as [agentId: string, seq: number][];
  for (const [agentId, seq] of rows) {
    let seqs = shared.get(agentId);
    if (!seqs) shared.set(agentId, (seqs = new Set()));
    seqs.add(seq);
  }
  return shared;
}

/** Whether the record deleted at `seq` is the source of a move at that sequence. */
export function isMoveSource(db: LineageDb, agentId: string, recordId: string, seq: number): boolean {
  return statements(db).moveSource.get(agentId, recordId, seq) !== undefined;
}

/** Each agent's latest sequence (0 for one never synced). */
export function latestSequences(db: LineageDb, agentIds: readonly string[]): Map<string, number> {
  const rows = statements(db).latest.all(JSON.stringify(agentIds)) as [id: string, latest: number | null][];
  return new Map(rows.map(([id, latest]) => [id, latest ?? 0]));
}
