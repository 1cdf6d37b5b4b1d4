import { sql } from 'drizzle-orm';
import type { LineageDb } from '@/db/client';

/** One file of a download: its workspace-relative path and bytes. */
export interface DownloadFile {
  name: string;
  data: Buffer;
}

/**
 * The files live at `seq`, in path order, a page at a time, each page one query with the bytes
 * joined in. The same loose index scan as `liveRawFiles` (current-state.ts), resumed after the
 * last path of the previous page, so a download of 20,000 files never holds the event loop for the
 * whole tree (that one query took most of a second there) and its total cost stays linear.
 */
export function* liveFilePages(db: LineageDb, agentId: string, seq: number, pageSize = 64): Generator<DownloadFile[]> {
  let after = '';
  for (;;) {
    const rows = db.db.all<{ path: string; deleted: number | null; sha256: string | null; data: Buffer | null }>(sql`
      WITH RECURSIVE paths(path, n) AS (
        SELECT (SELECT min(path) FROM raw_file_versions WHERE agent_id = ${agentId} AND path > ${after}), 1
        UNION ALL
        SELECT (SELECT min(path) FROM raw_file_versions WHERE agent_id = ${agentId} AND path > paths.path), n + 1
        FROM paths WHERE paths.path IS NOT NULL AND n < ${pageSize}
      )
      SELECT p.path AS path, v.deleted AS deleted, v.sha256 AS sha256, o.data AS data
      FROM paths p
      LEFT JOIN raw_file_versions v ON v.rowid = (
        SELECT w.rowid FROM raw_file_versions w
        WHERE w.agent_id = ${agentId} AND w.path = p.path AND w.seq <= ${seq}
        ORDER BY w.seq DESC, w.entry_kind DESC LIMIT 1)
      LEFT JOIN raw_objects o ON o.sha256 = v.sha256 AND v.deleted = 0
      WHERE p.path IS NOT NULL
      ORDER BY p.path`);
    const page: DownloadFile[] = [];
    for (const row of rows) {
      if (row.deleted !== 0) continue; // deleted at seq, or not yet written then
      if (!row.data) throw new Error(`raw object ${row.sha256} is missing from the index; run \`lineage index --rebuild\``);
      page.push({ name: row.path, data: row.data });
    }
    if (page.length > 0) yield page;
    if (rows.length < pageSize) return;
    after = rows[rows.length - 1]!.path;
  }
}
