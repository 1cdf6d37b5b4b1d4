/**
 * A memory too large to sync: its record's JSON line longer than an archive reader takes
 * (`DEFAULT_ARCHIVE_LIMITS.maxLineBytes`, 16 MiB: lib/core/archive/json-text.ts), which every
 * ledger's reader would refuse naming only the archive's partition and line
 * (`memory/2026-Q4.jsonl line 1`), a place no workspace holds. The sync refuses it itself, before
 * anything is uploaded or written, naming the memory as the ledger's record refusals do
 * (ingest-checks.ts `placeOf`: its id, the workspace file and lines, the ZeroClaw key, the Hermes
 * session). The lengths are the writers' own (`writeSnapshotRead`'s `longestLine`, whether or not
 * the records came with their lines; `WrittenDelta.longestLine`): one comparison per upload; only a
 * refused one measures its records again, to find which.
 */
import { DEFAULT_ARCHIVE_LIMITS } from '@/lib/core/archive/types';
import type { LineBytes } from '@/lib/core/archive/record-lines';
import type { DeltaEntry } from '@/lib/core/archive/types';
import { recordJson, type MemoryRecord } from '@/lib/core/record';
import { SyncError } from './errors';

/** The longest record line any reader of ours (and so any ledger) takes, in bytes. */
export const MAX_RECORD_LINE_BYTES = DEFAULT_ARCHIVE_LIMITS.maxLineBytes;

/** The hint of a memory too large to sync. */
export const TOO_LARGE_HINT =
  'nothing was uploaded or written: split that memory into smaller ones (in a Markdown file, more `## ` sections, each well under the limit; a whole file without sections into several files or sections), then sync again';

/**
 * Refuses a first snapshot whose longest record line (`longest`, the writer's) is over the limit:
 * `lines[i]` is `records[i]`'s line when the caller made them (a store sync's), else each record is
 * serialized again (only then: the refusal's cost).
 */
export async function checkSnapshotLines(longest: number, records: readonly MemoryRecord[], lines: readonly LineBytes[] | null): Promise<void> {
  if (longest <= MAX_RECORD_LINE_BYTES) return;
  const sizes = records.map((record, i) => {
    const line = lines?.[i];
    return line ? line.end - line.start : Buffer.byteLength(recordJson(record), 'utf8');
  });
  throw await tooLarge(records, sizes);
}

/**
 * Refuses a delta whose longest `memory/delta.jsonl` line (`longest`, the writer's) is over the
 * limit. The line of an entry is `{"operation":"…",` and then its record's line after its `{`.
 */
export async function checkDeltaLines(longest: number, entries: readonly DeltaEntry[]): Promise<void> {
  if (longest <= MAX_RECORD_LINE_BYTES) return;
  const sizes = entries.map(({ operation, record }) =>
    Buffer.byteLength(`{"operation":${JSON.stringify(operation)},`, 'utf8') + Buffer.byteLength(recordJson(record), 'utf8') - 1);
  throw await tooLarge(entries.map((entry) => entry.record), sizes);
}

async function tooLarge(records: readonly MemoryRecord[], sizes: readonly number[]): Promise<SyncError> {
  const over = sizes.flatMap((size, i) => (size > MAX_RECORD_LINE_BYTES ? [i] : []));
  const first = over[0] ?? sizes.indexOf(Math.max(...sizes));
  // The ledger's naming of a record, loaded only here (an idle sync loads none of the ledger's checks).
  const { placeOf } = await import('@/lib/ledger/ingest-checks');
  const others = over.length > 1 ? `; ${over.length - 1} other memor${over.length === 2 ? 'y is' : 'ies are'} too large as well` : '';
  return new SyncError(
    'sync_upload_failed',
    `a memory is too large to sync: its record is ${sizes[first]} bytes of JSON, more than the ${MAX_RECORD_LINE_BYTES} bytes (16 MiB) an archive reader takes for one record${placeOf(records[first]!)}${others}`,
    TOO_LARGE_HINT,
  );
}
