/**
 * The parts of a workspace comparison that do not depend on the engine (pure): the range check,
 * the files' classification from their state at each end, and the answer assembled from the
 * linked memories and the versions read for the page. Both backends' `compareWorkspace` (SQLite:
 * compare.ts, PostgreSQL: lib/storage/pg/compare.ts) read rows and hand them to these.
 */
import { LedgerError } from '@/lib/ledger/errors';
import { sequenceMissingWords } from '@/lib/ui/sequence-words';
import { moveContentKey } from '../provenance';
import type { LinkedMemories, LinkedPage } from './compare-chains';
import { checkLimit, parseTags } from './common';

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
    /**
     * `whitespace_only`: the two versions differ in nothing but whitespace at the ends of lines and
     * of the text (`onlyWhitespaceDiffers`) — e.g. the line break a section's stored text gains when
     * another section comes to follow it in its file. Still an update (the stored text did change,
     * and the sequences' pages list it), said as such: its word diff alone would show nothing.
     */
    updated: { before: CompareMemory; after: CompareMemory; whitespace_only: boolean }[];
    deleted: CompareMemory[];
    /**
     * `content_changed`: it was also edited (the word diff of `before` → `after` shows how) — its
     * text differs as a move compares texts (provenance.ts `moveContentKey`: not by the blank lines
     * and trailing whitespace a section's place in its file gives its stored text).
     */
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

/**
 * Entries per kind: `limit` (default 500), a whole number in 1…2,000 — another is refused in words
 * that say the bound (common.ts `checkLimit`); it was cut into the range (0 → 1, 5000 → 2000, 2.5 → 2) without a word.
 */
export function compareLimit(limit: number | undefined): number {
  return checkLimit(limit, DEFAULT_LIMIT, MAX_LIMIT);
}

/** Checks the two ends: whole numbers in 0…latest, `from` not after `to`. Said in words. */
export function checkRange(latest: number | null, agentName: string, from: number, to: number): void {
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

/** A path's newest raw version at one end (null: none yet). */
export type FileSide = { sha256: string | null; size: number; seq: number; deleted: number } | null;

/** A path with a version in (from, to] and its state at each end. */
export interface FileStateRow {
  path: string;
  from: FileSide;
  to: FileSide;
}

/** The files added, changed and removed, each in path byte order (SQLite's text order; JS sorts by UTF-16). */
export function classifyFiles(rows: readonly FileStateRow[]): WorkspaceComparison['files'] {
  const live = (side: FileSide) => (side && side.deleted === 0 && side.sha256 !== null ? side : null);
  const asFile = (path: string, s: NonNullable<FileSide>): CompareFile => ({ path, sha256: s.sha256!, size: s.size, seq: s.seq });
  const files: WorkspaceComparison['files'] = { added: [], changed: [], removed: [] };
  const order = rows.map((r) => ({ ...r, key: Buffer.from(r.path) })).sort((a, b) => Buffer.compare(a.key, b.key));
  for (const row of order) {
    const [a, b] = [live(row.from), live(row.to)];
    if (!a && b) files.added.push(asFile(row.path, b));
    else if (a && !b) files.removed.push(asFile(row.path, a));
    else if (a && b && a.sha256 !== b.sha256) files.changed.push({ path: row.path, before: asFile(row.path, a), after: asFile(row.path, b) });
  }
  return files;
}

/** The version ids whose contents the answer shows (the page's, linkMemories' first `limit` of each kind). */
export function pageVersionIds(page: LinkedMemories): number[] {
  return [...page.created, ...page.deleted, ...page.updated.flat(), ...page.moved.flatMap((m) => [m.before, m.after])];
}

/** A version row as read (tags as stored JSON text, the record's key already extracted). */
export type CompareVersionRow = Omit<CompareMemory, 'tags' | 'key'> & { id: number; tags: string; key: unknown };

/** The comparison's memory from a version row: tags parsed, a key only when it is a non-blank string. */
export function compareMemoryOf({ id: _id, tags, key, ...row }: CompareVersionRow): CompareMemory {
  return { ...row, tags: parseTags(tags), key: typeof key === 'string' && key.trim() !== '' ? key : null };
}

/**
 * Whether two versions of a memory differ only in whitespace at the ends of lines and of the text:
 * their texts differ in bytes but not as a move compares texts (provenance.ts `moveContentKey`, the
 * contract's `trim_end` per line and at the end), and nothing else a comparison looks at differs
 * (file, heading, key, type, namespace, status, tags).
 */
export function onlyWhitespaceDiffers(before: CompareMemory, after: CompareMemory): boolean {
  if (before.content === after.content || moveContentKey(before.content) !== moveContentKey(after.content)) return false;
  const rest = (m: CompareMemory) => JSON.stringify([m.origin_file, m.heading, m.key, m.memory_type, m.namespace, m.status, m.tags]);
  return rest(before) === rest(after);
}

/** The answer: every kind's page, the exact counts, and whether any kind was cut at `limit`. */
export function assembleComparison(p: {
  agentId: string; from: number; to: number; limit: number; linked: LinkedPage;
  files: WorkspaceComparison['files']; versions: ReadonlyMap<number, CompareMemory>;
}): WorkspaceComparison {
  const { linked: { page, counts: memories }, files, limit } = p;
  const counts = { ...memories, added: files.added.length, changed: files.changed.length, removed: files.removed.length };
  const v = (id: number) => p.versions.get(id)!;
  return {
    agent_id: p.agentId, from: p.from, to: p.to,
    memories: {
      created: page.created.map(v),
      updated: page.updated.map(([a, b]) => {
        const [before, after] = [v(a), v(b)];
        return { before, after, whitespace_only: onlyWhitespaceDiffers(before, after) };
      }),
      deleted: page.deleted.map(v),
      moved: page.moved.map((m) => {
        const [before, after] = [v(m.before), v(m.after)];
        // The stored digests differ for a section moved unchanged from the middle of a file to the
        // end of another (the blank line after it goes): the texts, read for the page, decide.
        return { before, after, content_changed: m.contentChanged && moveContentKey(before.content) !== moveContentKey(after.content) };
      }),
    },
    files: { added: files.added.slice(0, limit), changed: files.changed.slice(0, limit), removed: files.removed.slice(0, limit) },
    counts,
    truncated: Object.values(counts).some((n) => n > limit),
    limit,
  };
}
