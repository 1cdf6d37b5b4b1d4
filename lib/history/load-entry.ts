/**
 * A ledger entry's archive as the fold takes it, by the ledger's checked path: the blob read from
 * the blob store (sha256 checked), parsed by fflate's synchronous reader when `fast` and it takes
 * the blob, else by the core archive reader. The rebuild's fallback for a blob its helper could not
 * prepare, and the catch-up of pending entries (pending-index.ts).
 */
import { readDelta, readSnapshot } from '@/lib/core/archive';
import type { LedgerEntryRow } from '@/db/schema';
import { readEntryBytes } from '@/lib/ledger/entries';
import type { Ledger } from '@/lib/ledger/ledger';
import { prepareArchive, prepareLedgerBlobSync, type PreparedEntry } from './ledger-blob';

export async function loadPreparedEntry(
  ledger: Ledger, entry: Pick<LedgerEntryRow, 'blob_key' | 'sha256' | 'agent_id' | 'seq' | 'kind'>, options: { fast: boolean },
): Promise<PreparedEntry> {
  const bytes = await readEntryBytes({ ledger, entry });
  const fast = options.fast ? prepareLedgerBlobSync(entry.kind, bytes) : null;
  if (fast) return fast;
  return entry.kind === 'delta'
    ? prepareArchive({ kind: 'delta', archive: await readDelta(bytes) })
    : prepareArchive({ kind: 'snapshot', archive: await readSnapshot(bytes) });
}
