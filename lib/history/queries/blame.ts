/**
 * Blame of one workspace file at a sequence: each memory section of the file with where it was
 * born (through its moves, so a section moved from another file keeps its first birth), when its
 * text last changed and when it last moved; the lines no section holds are the file's own, from
 * the sequence that last changed its bytes.
 */
import { sql } from 'drizzle-orm';
import type { LineageDb } from '@/db/client';
import { historyOf, type BlameHistory, type BlameMark, type ChainVersion } from './blame-chain';
import { fileLines, placeRecords } from './blame-sections';
import { assertSequence, findAgent, type TenantScope } from './common';
import { liveAt } from './records';
import { getWorkspaceFile } from './workspace';

export type { BlameMark };

/** Lines of one memory section. `record_id` is the record it is at `seq` (its lineage page answers for any id of the chain). */
export interface BlameSectionBlock extends BlameHistory {
  kind: 'section';
  line_start: number;
  line_end: number;
  lines: string[];
  record_id: string;
  heading: string | null;
}

/** Lines no section holds (preamble, blank lines between sections, a file without records). */
export interface BlameFileBlock {
  kind: 'file';
  line_start: number;
  line_end: number;
  lines: string[];
  changed: BlameMark;
}

export type BlameBlock = BlameSectionBlock | BlameFileBlock;

export interface FileBlame {
  agent_id: string;
  seq: number;
  path: string;
  /** The sequence that last changed the file's bytes (or its rendering from records), with its time. */
  file_changed: BlameMark;
  /** The bytes at `seq` were rendered from records (a record-only delta), not synced. */
  reconstructed: boolean;
  /** Not UTF-8: no lines, no blocks. */
  binary: boolean;
  line_count: number;
  /** Every line of the file exactly once, in order. */
  blocks: BlameBlock[];
  /** Records live in the file at `seq` whose text it does not hold (their lines, if any, are the file's). */
  unplaced_record_ids: string[];
}

type LiveRow = { record_id: string; content: string; heading: string | null; record_json: string; version_id: number };

const utf8 = new TextDecoder('utf-8', { fatal: true });

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
  const base = { agent_id: agent.id, seq, path, file_changed: head.mark, reconstructed: head.reconstructed };
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    return { ...base, binary: true, line_count: 0, blocks: [], unplaced_record_ids: [] };
  }
  const live = db.all<LiveRow>(sql`
    WITH live AS (${liveAt(agent.id, seq)})
    SELECT live.record_id, live.content, live.heading, v.record_json, live.version_id
    FROM live JOIN record_versions v ON v.id = live.version_id WHERE live.origin_file = ${path}`);
  const records = live.map((r) => ({ ...r, ...lineHints(r.record_json) }));
  const { placed, unplaced } = placeRecords(text, records);
  const histories = sectionHistories(db, agent.id, seq, placed.map((p) => p.record));
  const lines = fileLines(text);
  const blocks: BlameBlock[] = [];
  let next = 1;
  const fileBlock = (from: number, to: number) => {
    if (to >= from) blocks.push({ kind: 'file', line_start: from, line_end: to, lines: lines.slice(from - 1, to), changed: head.mark });
  };
  for (const p of placed) {
    fileBlock(next, p.lineStart - 1);
    blocks.push({
      kind: 'section', line_start: p.lineStart, line_end: p.lineEnd, lines: lines.slice(p.lineStart - 1, p.lineEnd),
      record_id: p.record.record_id, heading: p.record.heading, ...histories.get(p.record.record_id)!,
    });
    next = p.lineEnd + 1;
  }
  fileBlock(next, lines.length);
  return { ...base, binary: false, line_count: lines.length, blocks, unplaced_record_ids: unplaced };
}

/** The exporter's line numbers of a record (OpenClaw's `raw_source_format`), when it has them. */
function lineHints(recordJson: string): { line_start: number | null; line_end: number | null } {
  const format = (JSON.parse(recordJson) as { raw_source_format?: { line_start?: unknown; line_end?: unknown } }).raw_source_format;
  const int = (v: unknown) => (typeof v === 'number' && Number.isSafeInteger(v) ? v : null);
  return { line_start: int(format?.line_start), line_end: int(format?.line_end) };
}

/**
 * The newest run of the path's versions ≤ seq with the bytes it has at seq: its first sequence is
 * when they last changed (a rollover snapshot that stores the same bytes again is no change).
 */
function fileChange(db: LineageDb['db'], agentId: string, path: string, seq: number): { mark: BlameMark; reconstructed: boolean } {
  const rows = db.all<{ seq: number; sha256: string | null; reconstructed: number | null }>(sql`
    SELECT seq, sha256, reconstructed FROM raw_file_versions WHERE agent_id = ${agentId} AND path = ${path} AND seq <= ${seq}
    ORDER BY seq DESC, entry_kind DESC`);
  let first = rows[0]!;
  for (const row of rows) {
    if (row.sha256 !== rows[0]!.sha256) break;
    first = row;
  }
  const at = db.get<{ t: string }>(sql`
    SELECT created_at AS t FROM ledger_entries WHERE agent_id = ${agentId} AND seq = ${first.seq} ORDER BY kind LIMIT 1`)?.t ?? '';
  return { mark: { seq: first.seq, at }, reconstructed: rows[0]!.reconstructed === 1 };
}

/**
 * Every version ≤ seq of the records' chains (the records, then the records they were moved
 * from, a round per move back), and each record's history from its live version.
 */
function sectionHistories(db: LineageDb['db'], agentId: string, seq: number, records: readonly LiveRow[]): Map<string, BlameHistory> {
  const versions = new Map<string, ChainVersion[]>();
  const ids = new Map<number, ChainVersion>();
  let wanted = records.map((r) => r.record_id);
  while (wanted.length > 0) {
    const rows = db.all<ChainVersion & { id: number }>(sql`
      SELECT id, record_id, seq, entry_kind, op, content_sha256, moved_from, origin_file, synced_at FROM record_versions
      WHERE agent_id = ${agentId} AND record_id IN (SELECT value FROM json_each(${JSON.stringify(wanted)})) AND seq <= ${seq}
      ORDER BY record_id, seq, entry_kind`);
    for (const id of wanted) versions.set(id, []);
    const next = new Set<string>();
    for (const { id, ...row } of rows) {
      versions.get(row.record_id)!.push(row);
      ids.set(id, row);
      if (row.moved_from !== null && !versions.has(row.moved_from)) next.add(row.moved_from);
    }
    wanted = [...next];
  }
  const out = new Map<string, BlameHistory>();
  for (const r of records) {
    const start = ids.get(r.version_id);
    if (start) out.set(r.record_id, historyOf(start, versions));
  }
  return out;
}
