/**
 * A synchronous reader of LEDGER blobs for the index rebuild. A ledger blob was accepted by ingest
 * (which read it with the full, untrusted-input reader of `lib/core/archive`) and the caller has
 * checked it against the sha256 recorded in its ledger entry, so its bytes are exactly the bytes
 * ingest accepted. This reader still checks what it relies on — member names (same rules as the
 * core reader), duplicate names, size caps, declared sizes — and then applies the core reader's own
 * layout rules (`deltaFromFiles` / `snapshotFromFiles`). On ANY irregularity it does not guess: it
 * returns null and the caller hands the blob to the core reader (`readDelta` / `readSnapshot`), which
 * either reads it or raises its precise `ArchiveError`.
 * So a corrupt blob gives the same clear error it would anywhere else, never a wrong index.
 *
 * Why a second reader: the core reader goes through yauzl's event-per-entry API, which costs more
 * per small delta than everything else the rebuild does with it. Here fflate reads a blob in one
 * synchronous pass.
 *
 * The result is a `PreparedEntry`: what the indexer needs of an archive, with each record's index
 * fields (canonical JSON, content sha256, …) already computed, so it can be built off the main
 * thread (see rebuild-worker.ts).
 */
import fs from 'node:fs';
import { BlobFiles } from '@/lib/ledger/blob-files';
import { unzipSync } from 'fflate';
import { entryNameProblem } from '@/lib/core/archive/entry-names';
import { deltaFromFiles } from '@/lib/core/archive/read-delta';
import { snapshotFromFiles } from '@/lib/core/archive/read-snapshot';
import { DEFAULT_ARCHIVE_LIMITS, type AlfDelta, type AlfSnapshot, type DeltaOperation } from '@/lib/core/archive/types';
import { sha256Hex } from '@/lib/core/uuid';
import { recordFields, workspacePath, type RecordFields } from './index-rows';

/**
 * A raw workspace file carried by an entry: workspace-relative path, sha256, size and bytes —
 * `bytes` is null when the preparer was told an object with that sha256 is stored already (the
 * rebuild keeps those, so the bytes need not travel between threads).
 */
export interface PreparedRawFile {
  path: string;
  sha256: string;
  size: number;
  bytes: Uint8Array | null;
}

const NOTHING_STORED: ReadonlySet<string> = new Set();

/** One delta line, with the record's index fields. */
export interface PreparedDeltaLine {
  operation: DeltaOperation;
  fields: RecordFields;
}

/** What the indexer needs of one ledger entry's archive. */
export type PreparedEntry =
  | { kind: 'delta'; lines: PreparedDeltaLine[]; rawChanged: PreparedRawFile[]; rawDeleted: string[] }
  | { kind: 'snapshot'; records: RecordFields[]; raw: PreparedRawFile[] };


/** Thrown inside this file only: "not the regular shape, let the core reader decide". */
class Irregular extends Error {}

function irregular(): never {
  throw new Irregular();
}

/**
 * Reads the members of a ZIP synchronously with fflate (a maintained library, as every archive read
 * here is); throws `Irregular` on anything the core reader should judge instead: unsafe or duplicate
 * names, directories, methods other than stored/Deflate, sizes over the caps, or a member that does
 * not inflate to its declared size.
 */
export function readZipSync(buffer: Buffer): Map<string, Uint8Array> {
  const limits = DEFAULT_ARCHIVE_LIMITS;
  const declared = new Map<string, number>();
  let total = 0;
  let members: Record<string, Uint8Array>;
  try {
    members = unzipSync(buffer, {
      filter(file) {
        const { name, originalSize, compression } = file;
        if (entryNameProblem(name) !== null || name.endsWith('/') || declared.has(name)) irregular();
        if (compression !== 0 && compression !== 8) irregular();
        total += originalSize;
        if (originalSize > limits.maxEntryUncompressedBytes || total > limits.maxTotalUncompressedBytes) irregular();
        declared.set(name, originalSize);
        if (declared.size > limits.maxEntries) irregular();
        return true;
      },
    });
  } catch {
    irregular();
  }
  const files = new Map<string, Uint8Array>();
  // Central-directory order, as the core reader gives it.
  for (const [name, size] of declared) {
    const data = members[name];
    if (data === undefined || data.byteLength !== size) irregular();
    files.set(name, data);
  }
  return files;
}

function rawFile(archivePath: string, bytes: Uint8Array, stored: ReadonlySet<string>): PreparedRawFile {
  const sha256 = sha256Hex(bytes);
  return { path: workspacePath(archivePath), sha256, size: bytes.byteLength, bytes: stored.has(sha256) ? null : bytes };
}

/** Prepares an archive the core reader parsed (the fallback path, and the incremental indexer's input). */
export function prepareArchive(
  input: { kind: 'delta'; archive: AlfDelta } | { kind: 'snapshot'; archive: AlfSnapshot },
  stored: ReadonlySet<string> = NOTHING_STORED,
): PreparedEntry {
  if (input.kind === 'delta') {
    const { archive } = input;
    return {
      kind: 'delta',
      lines: archive.entries.map((e) => ({ operation: e.operation, fields: recordFields(e.record) })),
      rawChanged: [...archive.rawChanged].map(([name, bytes]) => rawFile(name, bytes, stored)),
      rawDeleted: archive.rawDeleted.map(workspacePath),
    };
  }
  return {
    kind: 'snapshot',
    records: input.archive.records.map(recordFields),
    raw: [...input.archive.raw].map(([name, bytes]) => rawFile(name, bytes, stored)),
  };
}

/**
 * The synchronous path alone: the prepared entry, or null when the blob needs the core reader.
 * Raw files whose sha256 is in `stored` come without their bytes.
 */
export function prepareLedgerBlobSync(kind: 'delta' | 'snapshot', bytes: Uint8Array, stored: ReadonlySet<string> = NOTHING_STORED): PreparedEntry | null {
  try {
    const files = readZipSync(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
    // The core reader's own layout rules, on the members fflate unzipped.
    return prepareArchive(kind === 'delta'
      ? { kind, archive: deltaFromFiles(files, DEFAULT_ARCHIVE_LIMITS) }
      : { kind, archive: snapshotFromFiles(files, DEFAULT_ARCHIVE_LIMITS) }, stored);
  } catch (error) {
    // Irregular shape, or a parse error the core reader will report with its own wording.
    return null;
  }
}

/**
 * One blob to prepare: its file, the size and sha256 its ledger entry recorded, and its kind.
 */
export interface BlobJob {
  /** The blob's whole-form file; when it is not there, the blob is read from `root` by `key` (it may be packed). */
  file: string;
  root?: string;
  key?: string;
  size: number;
  sha256: string;
  kind: 'delta' | 'snapshot';
}

/**
 * Blobs up to this size are read into one reused buffer (a fresh buffer per file, and the
 * `fstat` `readFileSync` makes to size it, cost more than reading a typical delta). Nothing keeps
 * a view of it: the sha256 is computed from it and every unzipped member is a copy.
 */
const SCRATCH_BYTES = 1 << 20;
let scratch: Buffer | null = null;

/**
 * The file's bytes if it holds exactly `size` bytes, else null (missing, unreadable, shorter or
 * longer). Small files land in the shared scratch buffer: valid until the next call.
 */
function readBlobFile(file: string, size: number): Buffer | null {
  if (!Number.isSafeInteger(size) || size < 0) return null;
  // One byte more than expected: a longer file shows up as a read that fills it.
  const buffer = size < SCRATCH_BYTES ? (scratch ??= Buffer.allocUnsafe(SCRATCH_BYTES)) : Buffer.allocUnsafe(size + 1);
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch {
    return null;
  }
  try {
    let filled = 0;
    for (let n = -1; n !== 0 && filled <= size; filled += n) n = fs.readSync(fd, buffer, filled, size + 1 - filled, filled);
    return filled === size ? buffer.subarray(0, size) : null;
  } catch {
    return null;
  } finally {
    fs.closeSync(fd);
  }
}

/** One reader per store root in this thread: its cache keeps the bases of consecutive packed blobs. */
const readers = new Map<string, BlobFiles>();

/** The blob through the store's reader (packed or whole), or null when it cannot be read. */
function readThroughStore(job: BlobJob): Uint8Array | null {
  if (job.root === undefined || job.key === undefined) return null;
  let reader = readers.get(job.root);
  if (!reader) readers.set(job.root, (reader = new BlobFiles(job.root)));
  try {
    const bytes = reader.read(job.key);
    return bytes.byteLength === job.size ? bytes : null;
  } catch {
    return null;
  }
}

/**
 * Reads, verifies and prepares one blob file; null when anything is off (unreadable, not the
 * recorded size, sha256 mismatch, irregular archive): the caller then takes the ledger's own
 * checked path, which raises the precise error (`blob_missing`, `blob_corrupt`, an
 * `ArchiveError`) or reads it.
 */
export function prepareBlobFile(job: BlobJob, stored: ReadonlySet<string> = NOTHING_STORED): PreparedEntry | null {
  const bytes = readBlobFile(job.file, job.size) ?? readThroughStore(job);
  if (bytes === null || sha256Hex(bytes) !== job.sha256) return null;
  return prepareLedgerBlobSync(job.kind, bytes, stored);
}
