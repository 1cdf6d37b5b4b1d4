import { rustTrim } from '@/lib/core/rust-str';
import type { DerivedOp } from './index-rows';

/**
 * Links moves within one ledger entry: a created record whose trimmed content equals that of a
 * record deleted in the same entry from ANOTHER origin file gets `moved_from` = the deleted id.
 * Pairing is FIFO: creates in entry order each take the first unused matching delete.
 */
export function linkMoves(ops: DerivedOp[]): void {
  const deletesByContent = new Map<string, DerivedOp[]>();
  for (const op of ops) {
    if (op.op !== 'delete') continue;
    const key = rustTrim(op.fields.content);
    const list = deletesByContent.get(key);
    if (list) list.push(op);
    else deletesByContent.set(key, [op]);
  }
  if (deletesByContent.size === 0) return;
  const used = new Set<DerivedOp>();
  for (const op of ops) {
    if (op.op !== 'create') continue;
    const candidates = deletesByContent.get(rustTrim(op.fields.content));
    const match = candidates?.find((d) => !used.has(d) && d.fields.origin_file !== op.fields.origin_file);
    if (!match) continue;
    used.add(match);
    op.moved_from = match.fields.record_id;
  }
}
