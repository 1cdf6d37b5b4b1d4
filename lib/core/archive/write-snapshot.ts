import type { JsonObject } from '../json';
import { asMemoryRecord, recordJson, RecordShapeError, type MemoryRecord } from '../record';
import { MEMORY_INDEX_FILE, rawSources, recomputeLayers, type PartitionInfo } from './inventory';
import { isFullDate, partitionRecords, PARTITION_FILE, type QuarterPartition } from './partitions';
import { DELTA_MANIFEST_FILE, MANIFEST_FILE } from './read-snapshot';
import { ArchiveError, duplicateId, LAYER_FILES, type AlfSnapshot } from './types';
import type { LineBytes, RecordTimestamps } from './record-lines';
import type { StreamedDeflate } from './deflate-ahead';
import { jsonDocument, utf8, writeZip, type ZipEntry } from './zip-write';

/** Options of {@link writeSnapshot}. */
export interface WriteSnapshotOptions {
  /** `YYYY-MM-DD`; partitions ending before it are marked sealed. Without it none are. */
  today?: string;
  /**
   * The UTF-8 of `recordJson(snapshot.records[i])` where the caller already has it (a sync that
   * found a record unchanged holds its base line), so it is neither serialized nor encoded again.
   * Entries must be exactly those bytes. Such records are taken as already checked: their line
   * is the line of a record this writer or the reader accepted.
   */
  recordLines?: readonly (LineBytes | undefined)[];
  /**
   * Store raw files without compressing them. For an archive read back soon by the same program
   * (a sync's own base): writing and reading it then costs no Deflate or Inflate of the workspace's
   * bytes, at the price of a larger file. Same inputs, same bytes, as always.
   */
  storeRaw?: boolean;
  /**
   * Deflates of partitions started while their lines were made (see `StreamedDeflate`), by file:
   * each is used if it holds exactly the partition's bytes, and stopped once the archive is written.
   */
  partitionsAhead?: ReadonlyMap<string, StreamedDeflate>;
  /**
   * The records array whose ids the caller found distinct (lib/sync/snapshot.ts `checkedRecordLines`,
   * which checks them as it makes their lines): when it is `snapshot.records` itself, the ids are
   * not checked again. Any other array is ignored.
   */
  distinctIdsOf?: readonly MemoryRecord[];
}

/**
 * Writes a `.alf` snapshot with deterministic bytes, in the reference writer's entry
 * order (CONTRACT §3.1): layer files, quarterly partitions (§3.4), attachments, other
 * entries, raw files, and `manifest.json` last with its inventory recomputed.
 */
export async function writeSnapshot(snapshot: AlfSnapshot, opts: WriteSnapshotOptions = {}): Promise<Uint8Array> {
  return (await writeSnapshotRead(snapshot, opts)).bytes;
}

/**
 * A snapshot as writeSnapshot wrote it, for an ingest in the same process that defers its fold (a
 * local sync's first snapshot: lib/ledger/ingest.ts): what a reader of the bytes would check — the
 * manifest as written, the layers, raw and other files, the records in the order the archive holds
 * them — and what the archive limits look at. Made when every record came with its line.
 */
export interface WrittenSnapshot {
  parts: Omit<AlfSnapshot, 'records'>;
  /** Partition by partition, each in its line order: a reader's record `i` is `records[i]`. */
  records: readonly MemoryRecord[];
  /**
   * The array the records were given in (`snapshot.records`): what was checked of each record of
   * this very array (lib/ledger/record-checks.ts) holds for `records`, the same records reordered.
   */
  source: readonly MemoryRecord[];
  /** The archive's members, and each one's uncompressed size. */
  members: number;
  sizes: number[];
  /** The longest record line, in bytes. */
  longestLine: number;
}

/**
 * writeSnapshot's bytes, (when every record came with its line) the snapshot as they hold it, and
 * the longest record line in bytes whatever the records came with (what a reader's line limit
 * looks at: a sync refuses a memory over it, lib/sync/record-size.ts).
 */
export async function writeSnapshotRead(snapshot: AlfSnapshot, opts: WriteSnapshotOptions = {}): Promise<{ bytes: Uint8Array; written: WrittenSnapshot | null; longestLine: number }> {
  try {
    return await writeArchive(snapshot, opts);
  } finally {
    // Those it did not use (it refused the snapshot, or a partition was not what they were given) end here.
    for (const ahead of opts.partitionsAhead?.values() ?? []) ahead.abort();
  }
}

async function writeArchive(snapshot: AlfSnapshot, opts: WriteSnapshotOptions): Promise<{ bytes: Uint8Array; written: WrittenSnapshot | null; longestLine: number }> {
  if (opts.today !== undefined && !isFullDate(opts.today)) {
    throw new Error(`writeSnapshot: today must be YYYY-MM-DD, got ${JSON.stringify(opts.today)}`);
  }
  checkRecords(snapshot.records, opts.recordLines, opts.distinctIdsOf === snapshot.records);
  const partitions = partitionRecords(snapshot.records, (record) => (record instanceof LineOnlyRecord ? record.partition : undefined));
  const infos = partitions.map((partition) => partitionInfo(partition, opts.today));
  const { identity, principals, credentials, attachments } = snapshot.layers;
  const entries: ZipEntry[] = [];
  const measured = { longest: 0 };
  if (identity) entries.push({ name: LAYER_FILES.identity, data: jsonDocument(identity) });
  if (principals) entries.push({ name: LAYER_FILES.principals, data: jsonDocument(principals) });
  if (credentials) entries.push({ name: LAYER_FILES.credentials, data: jsonDocument(credentials) });
  for (const partition of partitions) {
    const data = recordLines(partition.records, opts.recordLines && { lines: opts.recordLines, indexes: partition.indexes }, measured);
    entries.push({ name: partition.file, data, ahead: opts.partitionsAhead?.get(partition.file) });
  }
  if (attachments) entries.push({ name: LAYER_FILES.attachments, data: jsonDocument(attachments) });
  const extra = extraEntries(snapshot.extra);
  const raw = rawEntries(snapshot.raw, opts.storeRaw === true);
  entries.push(...extra, ...raw);
  const manifest = buildManifest(snapshot, infos);
  entries.push({ name: MANIFEST_FILE, data: jsonDocument(manifest) });
  const longestLine = longestKnownLine(partitions, opts.recordLines);
  const written: WrittenSnapshot | null = longestLine === null ? null : {
    parts: {
      manifest,
      layers: Object.fromEntries(Object.entries(snapshot.layers).filter(([, doc]) => doc !== undefined)) as AlfSnapshot['layers'],
      raw: new Map(raw.map((e) => [e.name, e.data])),
      extra: new Map(extra.map((e) => [e.name, e.data])),
    },
    records: partitions.flatMap((partition) => partition.records),
    source: snapshot.records,
    members: entries.length,
    sizes: entries.map((e) => e.data.byteLength),
    longestLine,
  };
  return { bytes: await writeZip(entries), written, longestLine: measured.longest };
}

/** The longest record line in bytes, when every record came with its line (else null). */
function longestKnownLine(partitions: readonly QuarterPartition[], lines: readonly (LineBytes | undefined)[] | undefined): number | null {
  if (!lines) return null;
  let longest = 0;
  for (const partition of partitions) {
    for (const index of partition.indexes) {
      const line = lines[index];
      if (!line) return null;
      if (line.end - line.start > longest) longest = line.end - line.start;
    }
  }
  return longest;
}

/** See {@link lineOnlyRecord}. */
class LineOnlyRecord {
  constructor(readonly id: string, readonly temporal: RecordTimestamps | undefined, readonly partition: string | undefined) {}
}

/**
 * A record that stands for its line: it carries only what the writer reads of it (the id for the
 * checks; the timestamps that decide its partition, or that partition's file when it is known: one
 * of our own names, `memory/YYYY-Qn.jsonl`), and must come with its line in `recordLines`. A sync
 * makes these for records it knows unchanged without building them; the line must be one without
 * embeddings (what an adapter's export serializes to), as the inventory reads those off records.
 */
export function lineOnlyRecord(id: string, where: RecordTimestamps | { partition: string }): MemoryRecord {
  // A partition name that is not one of ours is refused where it is used (partitionRecords).
  return ('partition' in where ? new LineOnlyRecord(id, undefined, where.partition) : new LineOnlyRecord(id, where, undefined)) as unknown as MemoryRecord;
}

/** Records without a known line are checked for shape, and every id for being distinct unless `distinct` (the caller found them so). */
function checkRecords(records: readonly MemoryRecord[], known: readonly (LineBytes | undefined)[] | undefined, distinct: boolean): void {
  const seen = new Set<string>();
  for (let index = 0; index < records.length; index++) {
    const record = records[index]!;
    if (known?.[index] === undefined) checkShape(record, index);
    if (distinct) continue;
    if (seen.has(record.id)) throw duplicateId(record.id);
    seen.add(record.id);
  }
}

function checkShape(record: MemoryRecord, index: number): void {
  if (record instanceof LineOnlyRecord) throw new Error(`writeSnapshot: line-only record ${record.id} came without its line`);
  try {
    asMemoryRecord(record, `records[${index}]`);
  } catch (err) {
    if (err instanceof RecordShapeError) throw new ArchiveError('bad_record', `cannot write ${err.message}`);
    throw err;
  }
}

function partitionInfo(partition: QuarterPartition, today: string | undefined): PartitionInfo {
  return {
    file: partition.file,
    from: partition.from,
    to: partition.to,
    record_count: partition.records.length,
    sealed: today !== undefined && partition.to < today,
  };
}

/**
 * One JSONL line per record, schema field order, `\n` after each. `known.lines[known.indexes[k]]`:
 * record k's line, when known. `measured.longest` is raised to the longest line's bytes.
 */
export function recordLines(records: readonly MemoryRecord[], known?: { lines: readonly (LineBytes | undefined)[]; indexes: readonly number[] }, measured = { longest: 0 }): Uint8Array {
  if (records.length === 0) return new Uint8Array();
  if (known) return joinLineBytes(records, known.lines, known.indexes, measured);
  // Joined with a trailing empty element, so the `\n` after each line costs no per-line string.
  const lines = records.map((record) => {
    const line = recordJson(record);
    // Its UTF-8 length: at most 3 bytes per UTF-16 unit (measured only when that could matter).
    if (line.length * 3 > measured.longest) measured.longest = Math.max(measured.longest, Buffer.byteLength(line, 'utf8'));
    return line;
  });
  lines.push('');
  return utf8(lines.join('\n'));
}

/**
 * The records' lines, `\n` after each, in one buffer: the known ones' bytes, the others
 * serialized. Known lines that follow each other in the same source (unchanged records in base
 * order, with the base's `\n` between them) are copied as one run.
 */
function joinLineBytes(records: readonly MemoryRecord[], known: readonly (LineBytes | undefined)[], indexes: readonly number[], measured: { longest: number }): Uint8Array {
  const fresh = new Map<number, Buffer>();
  let size = 0;
  for (let k = 0; k < records.length; k++) {
    const line = known[indexes[k]!];
    const bytes = line ? null : Buffer.from(recordJson(records[k]!), 'utf8');
    if (bytes) fresh.set(k, bytes);
    const length = bytes ? bytes.byteLength : line!.end - line!.start;
    if (length > measured.longest) measured.longest = length;
    size += length + 1;
  }
  const out = Buffer.allocUnsafe(size);
  let at = 0;
  for (let k = 0; k < records.length; ) {
    const line = known[indexes[k]!];
    k++;
    if (!line) {
      const bytes = fresh.get(k - 1)!;
      out.set(bytes, at);
      at += bytes.byteLength;
      out[at++] = 0x0a;
      continue;
    }
    const { source, start } = line;
    let end = line.end;
    for (let next = known[indexes[k]!]; k < records.length && next && next.source === source && next.start === end + 1 && source[end] === 0x0a; next = known[indexes[k]!]) {
      end = next.end;
      k++;
    }
    out.set(source.subarray(start, end), at);
    at += end - start;
    out[at++] = 0x0a;
  }
  return out;
}

const RESERVED_NAMES = new Set<string>([MANIFEST_FILE, DELTA_MANIFEST_FILE, ...Object.values(LAYER_FILES)]);

/** Extra entries, sorted; stale partition files and the stale index are dropped as partitions are recomputed. */
function extraEntries(extra: ReadonlyMap<string, Uint8Array>): ZipEntry[] {
  const names = [...extra.keys()].filter((name) => name !== MEMORY_INDEX_FILE && !PARTITION_FILE.test(name)).sort();
  for (const name of names) {
    if (RESERVED_NAMES.has(name) || name.startsWith('raw/')) {
      throw new ArchiveError('duplicate_entry', `cannot write extra entry ${JSON.stringify(name)}: that name belongs to the snapshot itself`);
    }
  }
  return names.map((name) => ({ name, data: extra.get(name)! }));
}

function rawEntries(raw: ReadonlyMap<string, Uint8Array>, store: boolean): ZipEntry[] {
  const names = [...raw.keys()].sort();
  for (const name of names) {
    if (!/^raw\/[^/]+\/./.test(name)) {
      throw new ArchiveError('unsafe_path', `cannot write raw entry ${JSON.stringify(name)}: expected raw/<runtime>/<path>`);
    }
  }
  return names.map((name) => ({ name, data: raw.get(name)!, store }));
}

/**
 * The manifest, inventory recomputed. `raw_sources` lists the runtimes with files under `raw/`
 * and those the given manifest already declares (an adapter declares its own runtime even for
 * an empty workspace, as the reference's do); it is omitted only when both are empty.
 */
function buildManifest(snapshot: AlfSnapshot, partitions: PartitionInfo[]): JsonObject {
  const declared = Array.isArray(snapshot.manifest.raw_sources)
    ? snapshot.manifest.raw_sources.filter((s): s is string => typeof s === 'string')
    : [];
  const present = rawSources(snapshot.raw);
  const sources = [...present, ...declared.filter((s) => !present.includes(s))];
  const manifest: JsonObject = {
    ...snapshot.manifest,
    layers: recomputeLayers(snapshot, partitions),
    raw_sources: sources,
  };
  if (sources.length === 0) delete manifest.raw_sources;
  return manifest;
}
