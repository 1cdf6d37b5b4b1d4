/**
 * The changed words of each "update" in a change feed: its content against the record's previous
 * version, cut to the context around the changes (lib/ui/diff-excerpt), so a feed row shows what
 * changed rather than the first characters of the memory.
 */
import type { LineageDb } from '@/db/client';
import type { DiffSegment } from '@/lib/ui/diff';
import { diffExcerpt } from '@/lib/ui/diff-excerpt';

export interface UpdateRef {
  agent_id: string;
  record_id: string;
  seq: number;
}

/** `diff` of every update in `refs` (by index; undefined for rows whose previous version is missing). */
export function updateDiffs(db: LineageDb, refs: UpdateRef[]): (DiffSegment[] | undefined)[] {
  if (refs.length === 0) return [];
  // The key index (agent_id, record_id, seq, entry_kind) answers both lookups.
  const statement = db.sqlite.prepare<[string, string, number, string, string, number], { after: string; before: string | null }>(`
    SELECT cur.content AS after,
      (SELECT p.content FROM record_versions p
        WHERE p.agent_id = ? AND p.record_id = ? AND p.seq < ? AND p.op != 'delete'
        ORDER BY p.seq DESC, p.entry_kind DESC LIMIT 1) AS before
    FROM record_versions cur
    WHERE cur.agent_id = ? AND cur.record_id = ? AND cur.seq = ? AND cur.op = 'update'
    ORDER BY cur.entry_kind DESC LIMIT 1`);
  return refs.map((r) => {
    const row = statement.get(r.agent_id, r.record_id, r.seq, r.agent_id, r.record_id, r.seq);
    return row && row.before !== null ? diffExcerpt(row.before, row.after) : undefined;
  });
}
