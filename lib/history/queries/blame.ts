/**
 * Blame of one workspace file at a sequence: each memory section of the file with where it was
 * born (through its moves, so a section moved from another file keeps its first birth), when its
 * text last changed and when it last moved; the lines no section holds are the file's own, from
 * the sequence that last changed its bytes. The engine-free parts are blame-blocks.ts's, shared
 * with the PostgreSQL verb (lib/storage/pg/blame.ts).
 */
import { sql } from 'drizzle-orm';
import type { LineageDb } from '@/db/client';
import type { BlameHistory, BlameMark } from './blame-chain';
import {
  binaryBlame, blameOf, ChainRounds, fileText, lastFileChange, placeLive,
  type BlameLiveRow, type ChainVersionRow, type FileBlame, type FileVersionRow,
} from './blame-blocks';
import { assertSequence, findAgent, type TenantScope } from './common';
import { liveAt } from './records';
import { getWorkspaceFile } from './workspace';

export type { BlameMark };
export type { BlameBlock, BlameFileBlock, BlameSectionBlock, FileBlame } from './blame-blocks';

/**
 * The blame of `path` at `seq`. Null for an unknown agent or a path that is not a file of the
 * workspace at `seq`; `sequence_out_of_range` past the latest.
 */
export function getFileBlame(params: { db: LineageDb; agentId: string; seq: number; path: string; tenantId?: TenantScope }): FileBlame | null {
  const agent = findAgent(params.db, params.agentId, params.tenantId);
  if (!agent) return null;
  assertSequence(agent, params.seq);
  const { seq, path } = params;
  const bytes = getWorkspaceFile({ db: params.db, agentId: agent.id, seq, path });
  if (!bytes) return null;
  const { db } = params.db;
  const head = fileChange(db, agent.id, path, seq);
  const base = { agentId: agent.id, seq, path, fileChanged: head.mark, reconstructed: head.reconstructed };
  const text = fileText(bytes);
  if (text === null) return binaryBlame(base);
  const live = db.all<BlameLiveRow>(sql`
    WITH live AS (${liveAt(agent.id, seq, path)})
    SELECT live.record_id, live.content, live.heading, v.record_json, live.version_id
    FROM live JOIN record_versions v ON v.id = live.version_id WHERE live.origin_file = ${path}`);
  const { placed, unplaced } = placeLive(text, live);
  const histories = sectionHistories(db, agent.id, seq, placed.map((p) => p.record));
  return blameOf({ ...base, text, placed, unplaced, histories });
}

/** When the file's bytes at `seq` last changed (lastFileChange), with that sequence's sync time. */
function fileChange(db: LineageDb['db'], agentId: string, path: string, seq: number): { mark: BlameMark; reconstructed: boolean } {
  const rows = db.all<FileVersionRow>(sql`
    SELECT seq, sha256, reconstructed FROM raw_file_versions WHERE agent_id = ${agentId} AND path = ${path} AND seq <= ${seq}
    ORDER BY seq DESC, entry_kind DESC`);
  const last = lastFileChange(rows);
  const at = db.get<{ t: string }>(sql`
    SELECT created_at AS t FROM ledger_entries WHERE agent_id = ${agentId} AND seq = ${last.seq} ORDER BY kind LIMIT 1`)?.t ?? '';
  return { mark: { seq: last.seq, at }, reconstructed: last.reconstructed };
}

/** Every version ≤ seq of the records' chains (ChainRounds), and each record's history from its live version. */
function sectionHistories(db: LineageDb['db'], agentId: string, seq: number, records: readonly BlameLiveRow[]): Map<string, BlameHistory> {
  const chains = new ChainRounds();
  let wanted = records.map((r) => r.record_id);
  while (wanted.length > 0) {
    const rows = db.all<ChainVersionRow>(sql`
      SELECT id, record_id, seq, entry_kind, op, content_sha256, moved_from, origin_file, heading, synced_at FROM record_versions
      WHERE agent_id = ${agentId} AND record_id IN (SELECT value FROM json_each(${JSON.stringify(wanted)})) AND seq <= ${seq}
      ORDER BY record_id, seq, entry_kind`);
    wanted = chains.add(wanted, rows);
  }
  return chains.histories(records);
}
