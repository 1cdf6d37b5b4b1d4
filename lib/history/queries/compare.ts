/**
 * The net change of an agent's workspace from sequence `from` to sequence `to`, read from the index:
 * only the records and paths with a version in (from, to] are looked at (the (agent_id, seq)
 * indexes find them), each one's state at `from` and at `to` is one key-index seek, and moves link
 * the records of one memory, so a memory moved (and then edited) is one `moved` entry, not a
 * delete and a create. Contents are read only for the entries returned (at most `limit` per kind).
 */
import { sql } from 'drizzle-orm';
import type { LineageDb } from '@/db/client';
import { LedgerError } from '@/lib/ledger/errors';
import { findAgent, parseTags, type TenantScope } from './common';
import { linkMemories, type MemoryStateRow, type MoveEdge } from './compare-chains';
import { sequenceMissingWords } from '@/lib/ui/sequence-words';

/** A memory as it was at one end of the comparison. */
export interface CompareMemory {
  record_id: string;
  /** The sequence of this version. */
  seq: number;
  content: string;
  origin_file: string | null;
  heading: string | null;
  /** A heading-less record's runtime key (a ZeroClaw row's `raw_source_format.key`), else null. */
  key: string | null;
  memory_type: string;
  namespace: string;
  status: string;
  tags: string[];
}

export interface CompareFile {
  path: string;
  sha256: string;
  size: number;
  /** The sequence this content was written at. */
  seq: number;
}

export interface WorkspaceComparison {
  agent_id: string;
  from: number;
  to: number;
  memories: {
    created: CompareMemory[];
    updated: { before: CompareMemory; after: CompareMemory }[];
    deleted: CompareMemory[];
    /** `content_changed`: it was also edited (the word diff of `before` → `after` shows how). */
    moved: { before: CompareMemory; after: CompareMemory; content_changed: boolean }[];
  };
  files: {
    added: CompareFile[];
    changed: { path: string; before: CompareFile; after: CompareFile }[];
    removed: CompareFile[];
  };
  /** Every entry of each kind, also those beyond `limit`. */
  counts: Record<'created' | 'updated' | 'deleted' | 'moved' | 'added' | 'changed' | 'removed', number>;
  /** True when some kind had more than `limit` entries (the lists hold the first `limit`). */
  truncated: boolean;
  limit: number;
}

const DEFAULT_LIMIT = 500;
const MAX_LIMIT = 2000;

/** Checks the two ends: whole numbers in 0…latest, `from` not after `to`. Said in words. */
function checkRange(latest: number | null, agentName: string, from: number, to: number): void {
  if (latest === null) throw new LedgerError('never_synced', `${agentName} has never synced, so there is nothing to compare.`);
  for (const [name, n] of [['from', from], ['to', to]] as const) {
    if (!Number.isSafeInteger(n) || n < 0) throw new LedgerError('invalid_input', `The sequence “${name}” must be a whole number from 0 to ${latest}; it is ${n}.`);
  }
  if (from > to) {
    throw new LedgerError('invalid_input', `The first sequence (from, #${from}) comes after the second (to, #${to}): compare an earlier sequence with a later one, e.g. from=${to}&to=${from}.`);
  }
  for (const n of [from, to]) {
    if (n > latest) {
      throw new LedgerError('sequence_out_of_range', sequenceMissingWords({ seq: n, agentName, latest }), { latest });
    }
  }
}

/**
 * Per record with a version in (from, to] or moved away in it: its version live at `from` and at
 * `to` (null when not live then: never born, deleted, or moved away to another record).
 */
function memoryStates(db: LineageDb['db'], agentId: string, from: number, to: number): MemoryStateRow[] {
  const side = (at: number) => sql`(SELECT w.id FROM record_versions w WHERE w.agent_id = ${agentId}
      AND w.record_id = ids.record_id AND w.seq <= ${at} ORDER BY w.seq DESC, w.entry_kind DESC LIMIT 1)`;
  // A version is live unless it is a delete or a move away (to another record) follows it by `at`.
  const live = (v: 'f' | 't', at: number) => {
    const a = sql.raw(v);
    return sql`CASE WHEN ${a}.id IS NULL OR ${a}.op = 'delete' THEN NULL
      WHEN EXISTS (SELECT 1 FROM record_versions m WHERE m.agent_id = ${a}.agent_id AND m.moved_from = ${a}.record_id
        AND +m.seq <= ${at} AND (+m.seq > ${a}.seq OR (+m.seq = ${a}.seq AND m.entry_kind > ${a}.entry_kind))) THEN NULL
      ELSE ${a}.id END`;
  };
  // Everything but the text, to tell an update of its file, heading, type or tags from no change.
  const meta = (v: 'f' | 't') => sql.raw(`json_array(${v}.origin_file, ${v}.heading, ${v}.memory_type, ${v}.namespace, ${v}.status, ${v}.tags)`);
  return db.all<MemoryStateRow>(sql`
    WITH ids(record_id) AS (
      SELECT record_id FROM record_versions WHERE agent_id = ${agentId} AND seq > ${from} AND seq <= ${to}
      UNION SELECT moved_from FROM record_versions WHERE agent_id = ${agentId} AND seq > ${from} AND seq <= ${to} AND moved_from IS NOT NULL
    ), ends AS (SELECT ids.record_id, ${side(from)} AS vf, ${side(to)} AS vt FROM ids)
    SELECT ends.record_id, ${live('f', from)} AS from_id, ${live('t', to)} AS to_id,
      f.content_sha256 AS from_sha, t.content_sha256 AS to_sha, ${meta('f')} AS from_meta, ${meta('t')} AS to_meta,
      f.origin_file AS from_file, f.heading AS from_heading, t.origin_file AS to_file, t.heading AS to_heading
    FROM ends LEFT JOIN record_versions f ON f.id = ends.vf LEFT JOIN record_versions t ON t.id = ends.vt`);
}

function moveEdges(db: LineageDb['db'], agentId: string, from: number, to: number): MoveEdge[] {
  return db.all<MoveEdge>(sql`
    SELECT moved_from AS source, record_id AS target, seq, entry_kind FROM record_versions
    WHERE agent_id = ${agentId} AND seq > ${from} AND seq <= ${to} AND op = 'move' ORDER BY seq, entry_kind, record_id`);
}

type VersionRow = Omit<CompareMemory, 'tags' | 'key'> & { tags: string; key: unknown };

/** The versions with the given row ids, by id. */
function versionsById(db: LineageDb['db'], ids: number[]): Map<number, CompareMemory> {
  const out = new Map<number, CompareMemory>();
  if (ids.length === 0) return out;
  const rows = db.all<VersionRow & { id: number }>(sql`
    SELECT id, record_id, seq, content, origin_file, heading, memory_type, namespace, status, tags,
      CASE WHEN heading IS NULL AND json_valid(record_json) THEN json_extract(record_json, '$.raw_source_format.key') END AS key
    FROM record_versions WHERE id IN (SELECT value FROM json_each(${JSON.stringify(ids)}))`);
  for (const { id, tags, key, ...row } of rows) {
    out.set(id, { ...row, tags: parseTags(tags), key: typeof key === 'string' && key.trim() !== '' ? key : null });
  }
  return out;
}

type FileSide = { sha256: string | null; size: number; seq: number; deleted: number } | null;

/** Per path with a version in (from, to]: its state at `from` and at `to`, in path order. */
function fileStates(db: LineageDb['db'], agentId: string, from: number, to: number) {
  const rows = db.all<{ path: string; f: string | null; t: string | null }>(sql`
    WITH paths(path) AS (SELECT DISTINCT path FROM raw_file_versions WHERE agent_id = ${agentId} AND seq > ${from} AND seq <= ${to})
    SELECT path,
      (SELECT json_object('sha256', w.sha256, 'size', w.size, 'seq', w.seq, 'deleted', w.deleted) FROM raw_file_versions w
        WHERE w.agent_id = ${agentId} AND w.path = paths.path AND w.seq <= ${from} ORDER BY w.seq DESC, w.entry_kind DESC LIMIT 1) AS f,
      (SELECT json_object('sha256', w.sha256, 'size', w.size, 'seq', w.seq, 'deleted', w.deleted) FROM raw_file_versions w
        WHERE w.agent_id = ${agentId} AND w.path = paths.path AND w.seq <= ${to} ORDER BY w.seq DESC, w.entry_kind DESC LIMIT 1) AS t
    FROM paths`);
  const live = (text: string | null): FileSide => {
    const side = text === null ? null : (JSON.parse(text) as NonNullable<FileSide>);
    return side && side.deleted === 0 && side.sha256 !== null ? side : null;
  };
  const asFile = (path: string, s: NonNullable<FileSide>): CompareFile => ({ path, sha256: s.sha256!, size: s.size, seq: s.seq });
  const files: WorkspaceComparison['files'] = { added: [], changed: [], removed: [] };
  // Byte order of paths, as everywhere else (SQLite's text order is byte order; JS sorts by UTF-16).
  const order = rows.map((r) => ({ ...r, key: Buffer.from(r.path) })).sort((a, b) => Buffer.compare(a.key, b.key));
  for (const row of order) {
    const [a, b] = [live(row.f), live(row.t)];
    if (!a && b) files.added.push(asFile(row.path, b));
    else if (a && !b) files.removed.push(asFile(row.path, a));
    else if (a && b && a.sha256 !== b.sha256) files.changed.push({ path: row.path, before: asFile(row.path, a), after: asFile(row.path, b) });
  }
  return files;
}

/**
 * The net change from `from` to `to` (`from` ≤ `to`; equal ends compare to nothing). Null for an
 * unknown agent; `invalid_input` (400) for a bad range, `sequence_out_of_range` (404) past the latest.
 */
export function compareWorkspace(params: { db: LineageDb; agentId: string; from: number; to: number; limit?: number; tenantId?: TenantScope }):
  WorkspaceComparison | null {
  const agent = findAgent(params.db, params.agentId, params.tenantId);
  if (!agent) return null;
  const { from, to } = params;
  checkRange(agent.latest_sequence, agent.name, from, to);
  const limit = Math.min(Math.max(1, Math.trunc(params.limit ?? DEFAULT_LIMIT)), MAX_LIMIT);
  const { db } = params.db;
  const linked = linkMemories(memoryStates(db, agent.id, from, to), moveEdges(db, agent.id, from, to));
  const files = fileStates(db, agent.id, from, to);
  const counts = {
    created: linked.created.length, updated: linked.updated.length, deleted: linked.deleted.length, moved: linked.moved.length,
    added: files.added.length, changed: files.changed.length, removed: files.removed.length,
  };
  const page = {
    created: linked.created.slice(0, limit), updated: linked.updated.slice(0, limit),
    deleted: linked.deleted.slice(0, limit), moved: linked.moved.slice(0, limit),
  };
  const versions = versionsById(db, [
    ...page.created, ...page.deleted, ...page.updated.flat(), ...page.moved.flatMap((m) => [m.before, m.after]),
  ]);
  const v = (id: number) => versions.get(id)!;
  return {
    agent_id: agent.id, from, to,
    memories: {
      created: page.created.map(v),
      updated: page.updated.map(([a, b]) => ({ before: v(a), after: v(b) })),
      deleted: page.deleted.map(v),
      moved: page.moved.map((m) => ({ before: v(m.before), after: v(m.after), content_changed: m.contentChanged })),
    },
    files: { added: files.added.slice(0, limit), changed: files.changed.slice(0, limit), removed: files.removed.slice(0, limit) },
    counts,
    truncated: Object.values(counts).some((n) => n > limit),
    limit,
  };
}
