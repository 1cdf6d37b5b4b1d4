import { sql } from 'drizzle-orm';
import type { LineageDb } from '@/db/client';
import { isJsonObject, type JsonObject, type JsonValue } from '@/lib/core/json';
import { LATEST_VERSION_JOIN } from '../statements';
import { findAgent, type TenantScope } from './common';

/** `MemoryRecordDto` of CONTRACT §1.5 (keys as the reference golden) plus `source_sequence`. */
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
  raw_source_format: JsonObject | null;
  source_sequence: number;
}

/** The agent's live records projected to the dashboard DTO, in birth order. Null when unknown. */
export function getAgentMemoryDto(params: { db: LineageDb; agentId: string; tenantId?: TenantScope }): MemoryRecordDto[] | null {
  const agent = findAgent(params.db, params.agentId, params.tenantId);
  if (!agent) return null;
  const rows = params.db.db.all<{ record_json: string; last_seq: number }>(sql`
    SELECT v.record_json, r.last_seq FROM records r ${sql.raw(LATEST_VERSION_JOIN)}
    WHERE r.agent_id = ${agent.id} AND r.deleted_seq IS NULL
    ORDER BY r.first_seq, r.record_id`);
  return rows.map(({ record_json, last_seq }) => memoryDtoOf(record_json, last_seq));
}

/**
 * One live record's stored JSON projected to the DTO: the row folding both backends share (the
 * scale-out storage reads the same two columns, lib/storage/pg/memory.ts).
 */
export function memoryDtoOf(recordJson: string, lastSeq: number): MemoryRecordDto {
  const r = JSON.parse(recordJson) as JsonObject;
  const temporal = isJsonObject(r.temporal) ? r.temporal : {};
  const str = (v: unknown) => (typeof v === 'string' ? v : null);
  return {
    id: String(r.id),
    memory_type: String(r.memory_type),
    namespace: String(r.namespace),
    content: String(r.content),
    observed_at: str(temporal.observed_at) ?? str(temporal.created_at),
    created_at_alf: str(temporal.created_at),
    updated_at_alf: str(temporal.updated_at),
    tags: Array.isArray(r.tags) ? r.tags : [],
    source: isJsonObject(r.source) ? r.source : {},
    raw_source_format: isJsonObject(r.raw_source_format) ? r.raw_source_format : null,
    source_sequence: lastSeq,
  };
}
