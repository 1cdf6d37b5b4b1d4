import type { JsonObject } from '../json';
import type { MemoryRecord } from '../record';

/**
 * A `.alf` snapshot held in memory. Everything the archive carried is here, so a
 * read → write round trip loses nothing: unknown manifest keys, unknown record keys,
 * unknown layer files and `artifacts/**` all survive.
 */
export interface AlfSnapshot {
  /** manifest.json as read (unknown keys preserved); the writer recomputes `layers.memory` and inventory. */
  manifest: JsonObject;
  /** Every memory record of every partition, in partition order then line order. */
  records: MemoryRecord[];
  /** Layer documents, when present: identity.json, principals.json, credentials.json, attachments.json. */
  layers: Partial<Record<LayerName, JsonObject>>;
  /** Raw workspace files keyed by full archive path `raw/<runtime>/<relpath>`; bytes exact. */
  raw: Map<string, Uint8Array>;
  /** Any other entries (artifacts/**, unknown files) keyed by archive path, bytes exact. */
  extra: Map<string, Uint8Array>;
}

export type LayerName = 'identity' | 'principals' | 'credentials' | 'attachments';
export const LAYER_FILES: Record<LayerName, string> = {
  identity: 'identity.json',
  principals: 'principals.json',
  credentials: 'credentials.json',
  attachments: 'attachments.json',
};

export type DeltaOperation = 'create' | 'update' | 'delete';

/** One line of `memory/delta.jsonl`: the full record plus its operation (deletes carry the previous record). */
export interface DeltaEntry {
  operation: DeltaOperation;
  record: MemoryRecord;
}

/** A `.alf-delta` held in memory. */
export interface AlfDelta {
  /** delta-manifest.json as read (unknown keys preserved). */
  manifest: JsonObject;
  /**
   * The member the manifest was read from: `delta-manifest.json`, or `manifest.json` (the fallback
   * CONTRACT §3.2 allows), so that what is said of the manifest names the file the archive holds.
   * Absent on a delta built in memory: written, its manifest is `delta-manifest.json`
   * (`deltaManifestName`, read-delta.ts).
   */
  manifestFile?: string;
  /** Memory entries in file order; unknown operations are dropped by the reader. */
  entries: DeltaEntry[];
  /** Full-replace layer documents carried by the delta (identity, principals, credentials). */
  layers: Partial<Record<Exclude<LayerName, 'attachments'>, JsonObject>>;
  /** Changed raw files keyed by full archive path `raw/<runtime>/<relpath>`. */
  rawChanged: Map<string, Uint8Array>;
  /** Deleted raw files as full archive paths. */
  rawDeleted: string[];
}

/** Caps enforced while reading untrusted archives. */
export interface ArchiveLimits {
  maxEntries: number;
  maxTotalUncompressedBytes: number;
  maxEntryUncompressedBytes: number;
  maxLineBytes: number;
}

export const DEFAULT_ARCHIVE_LIMITS: ArchiveLimits = {
  maxEntries: 50_000,
  maxTotalUncompressedBytes: 512 * 1024 * 1024,
  maxEntryUncompressedBytes: 64 * 1024 * 1024,
  maxLineBytes: 16 * 1024 * 1024,
};

/**
 * What a reader hands over as it reads, for checks that need the text it parsed (ingest's
 * duplicated keys: `JSON.parse` keeps one of two equal keys). Each must not throw.
 * `manifest`: the manifest's text (`manifest.json`, or a delta's) and what it parsed to;
 * `line`: a record line's text and what it parsed to (a delta's line with its `operation`),
 * `index` its record's place among those the reader returns (a delta's skipped lines have none);
 * `layer`: a layer document's text (`identity.json` …) and what it parsed to;
 * `skipped`: a `memory/delta.jsonl` line the reader skips (its `operation` unknown, not a string,
 * or missing): its file, text, what it parsed to and its line number.
 */
export interface ReadHooks {
  manifest?: (text: string, value: JsonObject) => void;
  line?: (text: string, value: JsonObject, index: number) => void;
  layer?: (layer: LayerName, text: string, value: JsonObject) => void;
  skipped?: (file: string, text: string, value: JsonObject, line: number) => void;
}

/** A problem with an untrusted archive; `code` is stable, `message` says what was wrong. */
export class ArchiveError extends Error {
  constructor(
    readonly code:
      | 'not_a_zip'
      | 'unsafe_path'
      | 'too_many_entries'
      | 'too_large'
      | 'missing_manifest'
      | 'bad_manifest'
      | 'bad_record'
      | 'duplicate_record_id'
      | 'line_too_long'
      | 'duplicate_entry',
    message: string,
  ) {
    super(message);
    this.name = 'ArchiveError';
  }
}

/** What a writer says of an id two of its records hold (write-snapshot.ts, lib/sync/snapshot.ts `checkedRecordLines`). */
export function duplicateId(id: string): ArchiveError {
  return new ArchiveError('duplicate_record_id', `cannot write: record id ${id} appears twice`);
}
