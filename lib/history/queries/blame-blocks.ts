/**
 * The engine-free parts of a file's blame (pure): the shape of the answer, the file's last change
 * from its raw versions, the records' line hints, the rounds that gather each record's chain of
 * versions through its moves, and the blocks assembled from the placed sections. Both backends'
 * `getFileBlame` (SQLite: blame.ts, PostgreSQL: lib/storage/pg/blame.ts) read rows and hand them here.
 */
import { historyOf, type BlameHistory, type BlameMark, type ChainVersion } from './blame-chain';
import { fileLines, placeRecords, type PlacedRecord } from './blame-sections';

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

/** A record live in the file at `seq`, with the row id of that version. */
export type BlameLiveRow = { record_id: string; content: string; heading: string | null; record_json: string; version_id: number };

/** One raw version of the path, newest first. */
export type FileVersionRow = { seq: number; sha256: string | null; reconstructed: number | null };

/** A version of a chain as read, with its row id. */
export type ChainVersionRow = ChainVersion & { id: number };

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The file's text, or null when it is not UTF-8 (binary). */
export function fileText(bytes: Uint8Array): string | null {
  try {
    return utf8.decode(bytes);
  } catch {
    return null;
  }
}

/**
 * The newest run of the path's versions ≤ seq (`rows`, newest first) with the bytes it has at seq:
 * its first sequence is when they last changed (a rollover snapshot that stores the same bytes
 * again is no change).
 */
export function lastFileChange(rows: readonly FileVersionRow[]): { seq: number; reconstructed: boolean } {
  let first = rows[0]!;
  for (const row of rows) {
    if (row.sha256 !== rows[0]!.sha256) break;
    first = row;
  }
  return { seq: first.seq, reconstructed: rows[0]!.reconstructed === 1 };
}

/** The exporter's line numbers of a record (OpenClaw's `raw_source_format`), when it has them. */
function lineHints(recordJson: string): { line_start: number | null; line_end: number | null } {
  const format = (JSON.parse(recordJson) as { raw_source_format?: { line_start?: unknown; line_end?: unknown } }).raw_source_format;
  const int = (v: unknown) => (typeof v === 'number' && Number.isSafeInteger(v) ? v : null);
  return { line_start: int(format?.line_start), line_end: int(format?.line_end) };
}

type HintedRow = BlameLiveRow & { line_start: number | null; line_end: number | null };

/** The live records placed in the file's text (blame-sections.ts), with their line hints. */
export function placeLive(text: string, live: readonly BlameLiveRow[]): { placed: PlacedRecord<HintedRow>[]; unplaced: string[] } {
  return placeRecords(text, live.map((r) => ({ ...r, ...lineHints(r.record_json) })));
}

/**
 * Every version ≤ seq of the placed records' chains, gathered a round at a time: the records,
 * then the records they were moved from, a round per move back. `add` takes one round's rows and
 * answers the ids the next round reads (none: done).
 */
export class ChainRounds {
  private readonly versions = new Map<string, ChainVersion[]>();
  private readonly byId = new Map<number, ChainVersion>();

  add(wanted: readonly string[], rows: readonly ChainVersionRow[]): string[] {
    for (const id of wanted) this.versions.set(id, []);
    const next = new Set<string>();
    for (const { id, ...row } of rows) {
      this.versions.get(row.record_id)!.push(row);
      this.byId.set(id, row);
      if (row.moved_from !== null && !this.versions.has(row.moved_from)) next.add(row.moved_from);
    }
    return [...next];
  }

  /** Each record's history from its live version. */
  histories(records: readonly BlameLiveRow[]): Map<string, BlameHistory> {
    const out = new Map<string, BlameHistory>();
    for (const r of records) {
      const start = this.byId.get(r.version_id);
      if (start) out.set(r.record_id, historyOf(start, this.versions));
    }
    return out;
  }
}

/** The blame: the placed sections with their histories, and the lines between them the file's own. */
export function blameOf(p: {
  agentId: string; seq: number; path: string; text: string; fileChanged: BlameMark; reconstructed: boolean;
  placed: readonly PlacedRecord<HintedRow>[]; unplaced: string[]; histories: ReadonlyMap<string, BlameHistory>;
}): FileBlame {
  const lines = fileLines(p.text);
  const blocks: BlameBlock[] = [];
  let next = 1;
  const fileBlock = (from: number, to: number) => {
    if (to >= from) blocks.push({ kind: 'file', line_start: from, line_end: to, lines: lines.slice(from - 1, to), changed: p.fileChanged });
  };
  for (const placed of p.placed) {
    fileBlock(next, placed.lineStart - 1);
    blocks.push({
      kind: 'section', line_start: placed.lineStart, line_end: placed.lineEnd, lines: lines.slice(placed.lineStart - 1, placed.lineEnd),
      record_id: placed.record.record_id, heading: placed.record.heading, ...p.histories.get(placed.record.record_id)!,
    });
    next = placed.lineEnd + 1;
  }
  fileBlock(next, lines.length);
  return {
    agent_id: p.agentId, seq: p.seq, path: p.path, file_changed: p.fileChanged, reconstructed: p.reconstructed,
    binary: false, line_count: lines.length, blocks, unplaced_record_ids: p.unplaced,
  };
}

/** The blame of a file that is not UTF-8: no lines. */
export function binaryBlame(p: { agentId: string; seq: number; path: string; fileChanged: BlameMark; reconstructed: boolean }): FileBlame {
  return {
    agent_id: p.agentId, seq: p.seq, path: p.path, file_changed: p.fileChanged, reconstructed: p.reconstructed,
    binary: true, line_count: 0, blocks: [], unplaced_record_ids: [],
  };
}
