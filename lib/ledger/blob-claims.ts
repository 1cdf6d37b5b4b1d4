/**
 * A blob is written before the transaction that records it (a crash then leaves at most a blob
 * without an entry, never an entry without its blob). When that transaction fails and this process
 * knows it — a lost sequence race, a full disk — the upload was never acknowledged and its blob is
 * removed right away, unless another upload in flight wrote the same key (same bytes at the same
 * sequence) or an entry holds it. Nothing else ever deletes a blob: the sweep cannot tell a
 * never-acknowledged blob from one whose commit a lost WAL took (orphans.ts).
 */
import { mapStorageErrors } from './storage-errors';
import type { Ledger } from './ledger';

const holders = new WeakMap<Ledger['db'], Map<string, number>>();

function hold(ledger: Ledger, key: string, delta: 1 | -1): number {
  let map = holders.get(ledger.db);
  if (!map) holders.set(ledger.db, (map = new Map()));
  const n = (map.get(key) ?? 0) + delta;
  if (n === 0) map.delete(key);
  else map.set(key, n);
  return n;
}

/** Writes `bytes` at `key`, then runs `commit`; on its failure the blob goes if nothing else holds it. */
export async function withStoredBlob<T>(ledger: Ledger, key: string, bytes: Uint8Array, commit: () => Promise<T>): Promise<T> {
  hold(ledger, key, 1);
  let stored = false;
  try {
    // A full disk or a read-only directory says so (507 / read_only), naming the directory.
    await mapStorageErrors(ledger.db.dataDir, () => ledger.blobs.put(key, bytes));
    stored = true;
    const result = await commit();
    hold(ledger, key, -1);
    return result;
  } catch (error) {
    const others = hold(ledger, key, -1);
    if (stored && others === 0 && ledger.db.sqlite.open) {
      const referenced = ledger.db.sqlite.prepare('SELECT 1 FROM ledger_entries WHERE blob_key = ?').pluck().get(key) !== undefined;
      if (!referenced) await ledger.blobs.delete(key).catch(() => undefined);
    }
    throw error;
  }
}
