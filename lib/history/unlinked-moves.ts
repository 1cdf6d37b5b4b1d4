/**
 * Moves an index holds as a delete and a create: what an index written by an older lineage keeps
 * where today's indexer links one lineage (a section renamed, `## Boston` → `## Boston Office`, was
 * not linked before renames were; the ledger's blobs are the same). Found by running the indexer's
 * own rule (`linkMoves`, provenance.ts) over each entry's stored creates and tombstones: an index the
 * indexer of this version wrote has no pair left that the rule links, since the rule pairs every one
 * it can. `lineage index --rebuild` writes the index again and links them; `lineage doctor` says so.
 */
import type Database from 'better-sqlite3';
import type { DerivedOp, RecordFields } from './index-rows';
import { linkMoves } from './provenance';

export interface UnlinkedMoves {
  agent_id: string;
  sequence: number;
  kind: string;
  /** How many of the entry's delete + create pairs today's indexer links as one move. */
  moves: number;
}

interface Row {
  agent_id: string;
  seq: number;
  entry_kind: string;
  op: 'create' | 'delete';
  record_id: string;
  content: string;
  origin_file: string;
  record_json: string;
}

/** The entries whose stored creates and deletes today's indexer would link, in (agent, sequence, kind) order. */
export function unlinkedMoves(sqlite: Database.Database): UnlinkedMoves[] {
  // Only an entry that counts both a create and a delete can hold a pair (a linked move counts as neither), and
  // linkMoves pairs only records with an origin file.
  const rows = sqlite.prepare(`SELECT v.agent_id, v.seq, v.entry_kind, v.op, v.record_id, v.content, v.origin_file, v.record_json
    FROM ledger_entries e JOIN record_versions v ON v.agent_id = e.agent_id AND v.seq = e.seq AND v.entry_kind = e.kind
    WHERE e.creates > 0 AND e.deletes > 0 AND v.op IN ('create', 'delete') AND v.origin_file IS NOT NULL
    ORDER BY e.agent_id, e.seq, e.kind, v.id`).iterate() as IterableIterator<Row>;
  const out: UnlinkedMoves[] = [];
  let ops: DerivedOp[] = [];
  let at: Row | null = null;
  const flush = () => {
    if (!at || ops.length === 0) return;
    linkMoves(ops);
    const moves = ops.filter((op) => op.op === 'move').length;
    if (moves > 0) out.push({ agent_id: at.agent_id, sequence: at.seq, kind: at.entry_kind, moves });
  };
  for (const row of rows) {
    if (!at || row.agent_id !== at.agent_id || row.seq !== at.seq || row.entry_kind !== at.entry_kind) {
      flush();
      ops = [];
      at = row;
    }
    // linkMoves reads only these fields of a record (its content, file and, to order candidates, its JSON).
    const fields = { record_id: row.record_id, content: row.content, origin_file: row.origin_file, record_json: row.record_json } as RecordFields;
    ops.push({ op: row.op, fields, prev: null, moved_from: null });
  }
  flush();
  return out;
}
