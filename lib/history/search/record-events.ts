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

export function recordEvents(db: LineageDb): RecordEvents {
  const nextSeq = db.sqlite.prepare('SELECT min(seq) FROM record_versions WHERE agent_id = ? AND record_id = ? AND seq > ?').pluck();
  // Named: for a record with no moves the planner would otherwise walk the agent's later sequences.
  const nextMove = db.sqlite.prepare(`SELECT min(seq) FROM record_versions INDEXED BY record_versions_moved_from_idx
    WHERE agent_id = ? AND moved_from = ? AND moved_from IS NOT NULL AND op = 'move' AND seq > ?`).pluck();
  const lastOp = db.sqlite.prepare('SELECT op FROM record_versions WHERE agent_id = ? AND record_id = ? AND seq = ? ORDER BY entry_kind DESC LIMIT 1').pluck();
  const later = db.sqlite.prepare('SELECT 1 FROM record_versions WHERE agent_id = ? AND record_id = ? AND seq = ? AND entry_kind > ? LIMIT 1').pluck();
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
  // The key is (agent, seq, kind) and a kind is a delta or a snapshot, so a sequence has two entries
  // exactly when a (rollover) snapshot sits beside a delta: only the agents' few snapshots are looked
  // at, not every entry grouped.
  const rows = db.sqlite.prepare(`SELECT s.agent_id, s.seq FROM ledger_entries s
    WHERE s.agent_id IN (SELECT value FROM json_each(?)) AND s.kind = 'snapshot'
      AND EXISTS (SELECT 1 FROM ledger_entries d WHERE d.agent_id = s.agent_id AND d.seq = s.seq AND d.kind <> s.kind)`)
    .raw().all(JSON.stringify(agentIds)) as [agentId: string, seq: number][];
  for (const [agentId, seq] of rows) {
    let seqs = shared.get(agentId);
    if (!seqs) shared.set(agentId, (seqs = new Set()));
    seqs.add(seq);
  }
  return shared;
}
