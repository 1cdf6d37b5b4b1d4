/** Turning memory records into index rows (pure helpers of the indexer). */
import { canonicalJson, isJsonObject, type JsonObject } from '@/lib/core/json';
import type { MemoryRecord } from '@/lib/core/record';
import { sha256Hex } from '@/lib/core/uuid';
import type { EntryKind, RecordOp, RecordRow } from '@/db/schema';

/** The record fields every index row carries. */
export interface RecordFields {
  record_id: string;
  content: string;
  content_sha256: string;
  memory_type: string;
  namespace: string;
  status: string;
  origin_file: string | null;
  heading: string | null;
  tags: string;
  record_json: string;
  created_at: string | null;
  updated_at: string | null;
  observed_at: string | null;
}

function optionalString(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

/** Index fields of a record: heading from `raw_source_format.heading`, tags as JSON text, canonical JSON. */
export function recordFields(record: MemoryRecord): RecordFields {
  const rsf = isJsonObject(record.raw_source_format) ? record.raw_source_format : {};
  const tags = Array.isArray(record.tags) ? record.tags.filter((t): t is string => typeof t === 'string') : [];
  const temporal: JsonObject = isJsonObject(record.temporal) ? record.temporal : {};
  return {
    record_id: record.id,
    content: record.content,
    content_sha256: sha256Hex(record.content),
    memory_type: record.memory_type,
    namespace: record.namespace,
    status: record.status,
    origin_file: optionalString(record.source?.origin_file),
    heading: optionalString(rsf.heading),
    tags: JSON.stringify(tags),
    record_json: canonicalJson(record),
    created_at: optionalString(temporal.created_at),
    updated_at: optionalString(temporal.updated_at),
    observed_at: optionalString(temporal.observed_at),
  };
}

/**
 * A record's current state as the fold reads it: its `records` row and the canonical JSON of its
 * latest version (what an update is compared with, and a tombstone's fields are read from).
 */
export type CurrentRecord = RecordRow & { record_json: string };

/** Fields of the record as currently indexed (for tombstones). */
export function currentFields(row: CurrentRecord): RecordFields {
  return recordFields(JSON.parse(row.record_json) as MemoryRecord);
}

/**
 * One derived operation of a ledger entry. A move (provenance.ts) is the created record's op
 * `move` with `moved_from` set, and the deleted record's `delete` with `moved_to` set: that one
 * writes no version (the record ends there; its `records` row says so).
 */
export interface DerivedOp {
  op: RecordOp;
  fields: RecordFields;
  prev: CurrentRecord | null;
  moved_from: string | null;
  moved_to?: string;
}

/**
 * `raw/<runtime>/<path>` → `<path>` (the workspace-relative path). `<path>` may hold line breaks
 * (a POSIX file name may): `s`, so that `.` takes them too.
 */
export function workspacePath(archivePath: string): string {
  const match = /^raw\/[^/]+\/(.+)$/s.exec(archivePath);
  return match?.[1] ?? archivePath;
}

/** Entry ordering at one sequence: the delta, then the rollover snapshot. */
export const KIND_ORDER: Record<EntryKind, number> = { delta: 0, snapshot: 1 };
