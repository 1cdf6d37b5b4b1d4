import { rustTrimEnd } from '@/lib/core/rust-str';
import { isJsonObject } from '@/lib/core/json';
import type { DerivedOp, RecordFields } from './index-rows';
import { compareBinary } from './compare-binary';

/**
 * The content a move must keep: line endings normalised (`\r\n` and `\r` to `\n`) and each line's
 * trailing whitespace removed — so the blank lines at the very end go too (a section that was last
 * in its file and is now in the middle of another differs only by them).
 */
export function moveContentKey(content: string): string {
  return rustTrimEnd(content.split(/\r\n|\r|\n/).map(rustTrimEnd).join('\n'));
}

/**
 * A record's position in its file: the markdown section's first line, else a database store's
 * entry index, else none (then the entry's own order decides).
 */
function positionOf(fields: RecordFields): number {
  const record = JSON.parse(fields.record_json) as Record<string, unknown>;
  const rsf = isJsonObject(record.raw_source_format) ? record.raw_source_format : {};
  if (typeof rsf.line_start === 'number') return rsf.line_start;
  if (typeof rsf.entry_index === 'number') return rsf.entry_index;
  return Number.MAX_SAFE_INTEGER;
}

interface Candidate {
  op: DerivedOp;
  file: string;
  order: number;
  /** Read from the record's JSON only when a sort needs it. */
  position?: number;
}

const position = (c: Candidate) => (c.position ??= positionOf(c.op.fields));

/** (file, position, entry order); a list of one is left as it is (no JSON is parsed for it). */
function sortByFilePosition(list: Candidate[]): Candidate[] {
  if (list.length < 2) return list;
  return list.sort((a, b) => compareBinary(a.file, b.file) || position(a) - position(b) || a.order - b.order);
}

/**
 * The body a rename keeps: the content without its heading line (its first line, when that is a
 * markdown heading `#…`) and without the blank lines after it, then as `moveContentKey`. Empty for
 * a section that is only a heading.
 */
export function renameContentKey(content: string): string {
  const lines = moveContentKey(content).split('\n');
  let i = /^#/.test(lines[0] ?? '') ? 1 : 0;
  while (i < lines.length && lines[i] === '') i++;
  return lines.slice(i).join('\n');
}

/**
 * Finds the moves of one ledger entry (one sync of one agent) and marks them on `ops`. The create
 * becomes op `move` with `moved_from` = the deleted id; the delete gets `moved_to` = the created id
 * (it writes no version: the record ends there). Two passes:
 *
 * 1. a record deleted from file A and a record created in another file B with the same content
 *    (see `moveContentKey`) are one move;
 * 2. of the deletes and creates still unpaired, two whose bodies (`renameContentKey`: the content
 *    without its heading line) are equal and not empty are one move too — a section whose heading
 *    was renamed (or added, or removed), in the same file or moved to another. Never two of the same
 *    file and the same content: the first pass refused those.
 *
 * Deterministic and threshold-free: per key, creates in (file, position, entry order) order each
 * take the first unpaired delete in the same order (in the first pass, from another file). A
 * record moved and edited in the same sync has another body: it stays a create and a delete.
 * Records without an origin file never pair.
 */
export function linkMoves(ops: DerivedOp[]): void {
  pairBy(ops, moveContentKey, false, (c, d) => c.file !== d.file);
  pairBy(ops, renameContentKey, true, (c, d) => c.file !== d.file || moveContentKey(c.op.fields.content) !== moveContentKey(d.op.fields.content));
}

/** Pairs the unpaired deletes and creates of `ops` whose `keyOf` agree (not empty, if `needsKey`) and that `may` pair. */
function pairBy(ops: DerivedOp[], keyOf: (content: string) => string, needsKey: boolean, may: (create: Candidate, del: Candidate) => boolean): void {
  const deletes = new Map<string, Candidate[]>();
  ops.forEach((op, order) => {
    if (op.op !== 'delete' || op.moved_to !== undefined || op.fields.origin_file === null) return;
    const key = keyOf(op.fields.content);
    if (needsKey && key === '') return;
    const list = deletes.get(key) ?? [];
    list.push({ op, file: op.fields.origin_file, order });
    deletes.set(key, list);
  });
  if (deletes.size === 0) return;
  const creates = new Map<string, Candidate[]>();
  ops.forEach((op, order) => {
    if (op.op !== 'create' || op.fields.origin_file === null) return;
    const key = keyOf(op.fields.content);
    if (!deletes.has(key)) return;
    const list = creates.get(key) ?? [];
    list.push({ op, file: op.fields.origin_file, order });
    creates.set(key, list);
  });
  for (const [key, created] of creates) {
    const deleted = sortByFilePosition(deletes.get(key)!);
    const used = new Set<Candidate>();
    for (const c of sortByFilePosition(created)) {
      const d = deleted.find((x) => !used.has(x) && may(c, x));
      if (!d) continue;
      used.add(d);
      c.op.op = 'move';
      c.op.moved_from = d.op.fields.record_id;
      d.op.moved_to = c.op.fields.record_id;
    }
  }
}
