/**
 * A memory's history back from one version, across its moves: born (the create it started with,
 * in whatever file), last changed (the newest version whose content differs from the one before
 * it) and last moved. Pure over rows the caller read.
 */
import type { EntryKind, RecordOp } from '@/db/schema';

export interface ChainVersion {
  record_id: string;
  seq: number;
  entry_kind: EntryKind;
  op: RecordOp;
  content_sha256: string;
  moved_from: string | null;
  origin_file: string | null;
  heading: string | null;
  synced_at: string;
}

export interface BlameMark {
  seq: number;
  /** The sync time of that sequence. */
  at: string;
}

export interface BlameHistory {
  born: BlameMark & { record_id: string; file: string | null };
  /**
   * The content change: the birth, or the newest update that changed the text, or the newest move
   * that renamed it (its heading changed: provenance.ts pairs a rename by the body). Updates that
   * change only other fields (an OpenClaw record's line numbers or file mtime move whenever its
   * file is edited) are not changes, nor is a move that kept the heading: it pairs only sections
   * whose text is equal up to line endings and trailing whitespace.
   */
  changed: BlameMark & { record_id: string };
  /** The newest move in the chain (null when the memory never moved). */
  moved: (BlameMark & { from_file: string | null; to_file: string | null }) | null;
}

const before = (a: ChainVersion, b: ChainVersion) => a.seq < b.seq || (a.seq === b.seq && a.entry_kind < b.entry_kind);

/**
 * Walks back from `start` (a version in `versions.get(start.record_id)`, each list in (seq, entry
 * kind) order): through its record's earlier versions, at a move on to the moved-from record's
 * versions before it, until a create. `guard` bounds the walk (a chain can revisit an id: a
 * section moved back to its first file gets its first id again).
 */
export function historyOf(start: ChainVersion, versions: ReadonlyMap<string, readonly ChainVersion[]>, guard = 100_000): BlameHistory {
  const newestFirst: ChainVersion[] = [];
  let list = versions.get(start.record_id) ?? [start];
  let i = list.indexOf(start);
  while (i >= 0 && newestFirst.length < guard) {
    const v = list[i]!;
    if (v.op === 'delete') break; // the version after it was a re-creation: the walk ends there
    newestFirst.push(v);
    if (v.op === 'create') break;
    if (v.op === 'move' && v.moved_from !== null) {
      list = versions.get(v.moved_from) ?? [];
      i = findLastIndex(list, (w) => before(w, v));
    } else i -= 1;
  }
  const born = newestFirst[newestFirst.length - 1] ?? start;
  let changed = born;
  for (let k = 0; k < newestFirst.length - 1; k++) {
    const v = newestFirst[k]!;
    const prev = newestFirst[k + 1]!;
    if ((v.op === 'update' && v.content_sha256 !== prev.content_sha256) || (v.op === 'move' && v.heading !== prev.heading)) {
      changed = v;
      break;
    }
  }
  const moveAt = newestFirst.findIndex((v) => v.op === 'move');
  const move = moveAt >= 0 ? newestFirst[moveAt]! : null;
  return {
    born: { seq: born.seq, at: born.synced_at, record_id: born.record_id, file: born.origin_file },
    changed: { seq: changed.seq, at: changed.synced_at, record_id: changed.record_id },
    moved: move ? { seq: move.seq, at: move.synced_at, from_file: newestFirst[moveAt + 1]?.origin_file ?? null, to_file: move.origin_file } : null,
  };
}

function findLastIndex<T>(list: readonly T[], test: (item: T) => boolean): number {
  for (let i = list.length - 1; i >= 0; i--) if (test(list[i]!)) return i;
  return -1;
}
