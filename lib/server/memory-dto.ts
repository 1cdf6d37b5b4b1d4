import type { RecordRow } from '@/db/schema';
import { isJsonObject, type JsonObject, type JsonValue } from '@/lib/core/json';

/** One item of `GET /v1/agents/:id/memory` (CONTRACT §1.5, golden `openclaw-memory-dto.golden.json`). */
export interface MemoryRecordDto {
  id: string;
  memory_type: string;
  namespace: string;
  content: string;
  observed_at: string | null;
  created_at_alf: string | null;
  updated_at_alf: string | null;
  tags: JsonValue[];
  source: JsonObject;
  raw_source_format: JsonObject;
  source_sequence: number;
}

function text(value: JsonValue | undefined): string | null {
  return typeof value === 'string' ? value : null;
}

/** Projects an indexed current-state row to the DTO; `source_sequence` is the sequence of its last change. */
export function toMemoryDto(row: RecordRow): MemoryRecordDto {
  const record = JSON.parse(row.record_json) as JsonObject;
  const temporal = isJsonObject(record.temporal) ? record.temporal : {};
  const createdAt = text(temporal.created_at);
  return {
    id: row.record_id,
    memory_type: row.memory_type,
    namespace: row.namespace,
    content: row.content,
    observed_at: text(temporal.observed_at) ?? createdAt,
    created_at_alf: createdAt,
    updated_at_alf: text(temporal.updated_at),
    tags: Array.isArray(record.tags) ? record.tags : [],
    source: isJsonObject(record.source) ? record.source : {},
    raw_source_format: isJsonObject(record.raw_source_format) ? record.raw_source_format : {},
    source_sequence: row.last_seq,
  };
}
