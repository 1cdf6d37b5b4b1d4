/**
 * A synchronous reader of LEDGER blobs for the index rebuild. A ledger blob was accepted by ingest
 * (which read it with the full, untrusted-input reader of `lib/core/archive`) and the caller has
 * checked it against the sha256 recorded in its ledger entry, so its bytes are exactly the bytes
 * ingest accepted. This reader still checks what it relies on — member names (same rules as the
 * core reader), duplicate names, size caps, declared sizes — but on ANY irregularity it does not guess: it returns null and the caller hands the blob to
 * the core reader (`readDelta` / `readSnapshot`), which either reads it or raises its precise
 * `ArchiveError`.
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
import { unzipSync } from 'fflate';
import { isJsonObject, type JsonObject } from '@/lib/core/json';
import type { MemoryRecord } from '@/lib/core/record';
import { entryNameProblem } from '@/lib/core/archive/entry-names';
import { lineRecord, parseLineObject, parseManifest, RecordIdRegistry } from '@/lib/core/archive/read-common';
import { splitJsonLines } from '@/lib/core/archive/json-text';
import { DEFAULT_ARCHIVE_LIMITS, type AlfDelta, type AlfSnapshot, type DeltaOperation } from '@/lib/core/archive/types';
import { sha256Hex } from '@/lib/core/uuid';
import { recordFields, workspacePath, type RecordFields } from './index-rows';

// Not imported from the archive modules: this file is loaded by the rebuild worker, which needs none of yauzl.
const MANIFEST_FILE = 'manifest.json';
const DELTA_MANIFEST_FILE = 'delta-manifest.json';

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

const DELTA_MEMORY_FILE = 'memory/delta.jsonl';
const OPERATIONS: readonly string[] = ['create', 'update', 'delete'] satisfies DeltaOperation[];
const utf8 = new TextDecoder('utf-8', { fatal: true });

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

function rawFile(archivePath: string, bytes: Uint8Array, stored: ReadonlySet<string> = NOTHING_STORED): PreparedRawFile {
  const sha256 = sha256Hex(bytes);
  return { path: workspacePath(archivePath), sha256, size: bytes.byteLength, bytes: stored.has(sha256) ? null : bytes };
}

/** The regular delta layout: `delta-manifest.json` with `sync.base_sequence`, lines in `changes.memory.file`. */
function deltaFromFiles(files: Map<string, Uint8Array>, stored: ReadonlySet<string>): PreparedEntry {
  const manifestBytes = files.get(DELTA_MANIFEST_FILE) ?? irregular();
  const manifest = parseManifest(manifestBytes, DELTA_MANIFEST_FILE);
  const sync = manifest.sync;
  if (!isJsonObject(sync) || typeof sync.base_sequence !== 'number' || !Number.isSafeInteger(sync.base_sequence) || sync.base_sequence < 0) irregular();
  const changes: JsonObject = isJsonObject(manifest.changes) ? manifest.changes : {};
  const memory = changes.memory;
  const named = isJsonObject(memory) && typeof memory.file === 'string' ? memory.file : null;
  if (named !== null && !files.has(named)) irregular();
  const memoryFile = named ?? (files.has(DELTA_MEMORY_FILE) ? DELTA_MEMORY_FILE : null);
  const lines: PreparedDeltaLine[] = [];
  if (memoryFile !== null) {
    const ids = new RecordIdRegistry();
    for (const line of splitJsonLines(files.get(memoryFile)!, memoryFile, DEFAULT_ARCHIVE_LIMITS.maxLineBytes)) {
      const { operation, ...rest } = parseLineObject(memoryFile, line);
      if (typeof operation !== 'string' || !OPERATIONS.includes(operation)) continue;
      const record = lineRecord(memoryFile, line, rest);
      ids.add(record.id, `${memoryFile} line ${line.line}`);
      lines.push({ operation: operation as DeltaOperation, fields: recordFields(record) });
    }
  }
  const rawChanged: PreparedRawFile[] = [];
  for (const [name, bytes] of files) if (name.startsWith('raw/')) rawChanged.push(rawFile(name, bytes, stored));
  const raw = changes.raw;
  const deleted = isJsonObject(raw) ? raw.deleted : undefined;
  const rawDeleted: string[] = [];
  if (deleted !== undefined && deleted !== null) {
    if (!Array.isArray(deleted)) irregular();
    for (const path of deleted) {
      if (typeof path !== 'string' || !/^raw\/[^/]+\/./.test(path) || path.endsWith('/') || entryNameProblem(path) !== null || files.has(path)) irregular();
      rawDeleted.push(workspacePath(path));
    }
  }
  return { kind: 'delta', lines, rawChanged, rawDeleted };
}

/** The regular snapshot layout: partitions listed in the manifest (or every `memory/*.jsonl`). */
function snapshotFromFiles(files: Map<string, Uint8Array>, stored: ReadonlySet<string>): PreparedEntry {
  const manifest = parseManifest(files.get(MANIFEST_FILE) ?? irregular(), MANIFEST_FILE);
  const layers = manifest.layers;
  const memory = isJsonObject(layers) ? layers.memory : undefined;
  const partitions = isJsonObject(memory) ? memory.partitions : undefined;
  let partitionFiles: string[];
  if (partitions === undefined || partitions === null || (Array.isArray(partitions) && partitions.length === 0)) {
    partitionFiles = [...files.keys()].filter((name) => name.startsWith('memory/') && name.endsWith('.jsonl')).sort();
  } else {
    if (!Array.isArray(partitions)) irregular();
    partitionFiles = partitions.map((p) => (isJsonObject(p) && typeof p.file === 'string' ? p.file : irregular()));
    if (partitionFiles.some((f, i) => f.startsWith('raw/') || f === MANIFEST_FILE || !files.has(f) || partitionFiles.indexOf(f) !== i)) irregular();
  }
  const ids = new RecordIdRegistry();
  const records: RecordFields[] = [];
  for (const file of partitionFiles) {
    for (const line of splitJsonLines(files.get(file)!, file, DEFAULT_ARCHIVE_LIMITS.maxLineBytes)) {
      const record: MemoryRecord = lineRecord(file, line, parseLineObject(file, line));
      ids.add(record.id, `${file} line ${line.line}`);
      records.push(recordFields(record));
    }
  }
  const partitionSet = new Set(partitionFiles);
  const raw: PreparedRawFile[] = [];
  for (const [name, bytes] of files) if (name.startsWith('raw/') && !partitionSet.has(name)) raw.push(rawFile(name, bytes, stored));
  return { kind: 'snapshot', records, raw };
}

/** Prepares an archive the core reader parsed (the fallback path, and the incremental indexer's input). */
export function prepareArchive(input: { kind: 'delta'; archive: AlfDelta } | { kind: 'snapshot'; archive: AlfSnapshot }): PreparedEntry {
  if (input.kind === 'delta') {
    const { archive } = input;
    return {
      kind: 'delta',
      lines: archive.entries.map((e) => ({ operation: e.operation, fields: recordFields(e.record) })),
      rawChanged: [...archive.rawChanged].map(([name, bytes]) => rawFile(name, bytes)),
      rawDeleted: archive.rawDeleted.map(workspacePath),
    };
  }
  return {
    kind: 'snapshot',
    records: input.archive.records.map(recordFields),
    raw: [...input.archive.raw].map(([name, bytes]) => rawFile(name, bytes)),
  };
}

/**
 * The synchronous path alone: the prepared entry, or null when the blob needs the core reader.
 * Raw files whose sha256 is in `stored` come without their bytes.
 */
export function prepareLedgerBlobSync(kind: 'delta' | 'snapshot', bytes: Uint8Array, stored: ReadonlySet<string> = NOTHING_STORED): PreparedEntry | null {
  try {
    const files = readZipSync(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
    return kind === 'delta' ? deltaFromFiles(files, stored) : snapshotFromFiles(files, stored);
  } catch (error) {
    // Irregular shape, or a parse error the core reader will report with its own wording.
    return null;
  }
}

/** One blob to prepare: its file, the sha256 its ledger entry recorded, and its kind. */
export interface BlobJob {
  file: string;
  sha256: string;
  kind: 'delta' | 'snapshot';
}

/**
 * Reads, verifies and prepares one blob file; null when anything is off (unreadable, sha256
 * mismatch, irregular archive): the caller then takes the ledger's own checked path, which
 * raises the precise error (`blob_missing`, `blob_corrupt`, an `ArchiveError`) or reads it.
 */
export function prepareBlobFile(job: BlobJob, stored: ReadonlySet<string> = NOTHING_STORED): PreparedEntry | null {
  let bytes: Buffer;
  try {
    bytes = fs.readFileSync(job.file);
  } catch {
    return null;
  }
  if (sha256Hex(bytes) !== job.sha256) return null;
  return prepareLedgerBlobSync(job.kind, bytes, stored);
}
