import { NS } from '@/lib/core/ids';
import type { JsonObject, JsonValue } from '@/lib/core/json';
import { orderRecordFields, type MemoryRecord } from '@/lib/core/record';
import { parseUuid, uuidV5 } from '@/lib/core/uuid';
import { decodeEmbedding, embeddingEntry } from './embedding';
import { normalizeRfc3339 } from './time';

/** Columns that never go into `raw_source_format` (they are the record's own fields). */
const STRUCTURAL_COLUMNS = new Set(['id', 'content', 'embedding', 'agent_id']);

const AUTO_SAVE_PREFIXES = ['user_msg_', 'assistant_resp_'] as const;

const MEMORY_TYPE_BY_CATEGORY: Readonly<Record<string, string>> = {
  core: 'semantic',
  episodic: 'episodic',
  procedure: 'procedural',
  conversation: 'episodic',
  credentials: 'semantic',
};

/** ZeroClaw `category` → ALF `memory_type` (case-insensitive; unknown ⇒ semantic). */
export function memoryTypeForCategory(category: string): string {
  return MEMORY_TYPE_BY_CATEGORY[category.toLowerCase()] ?? 'semantic';
}

/**
 * Record id of a native row: the row's own UUID (canonical lowercase), else — where the
 * reference mints a random v4 — `uuidV5(NS.zeroclaw, nativeId)`, so exports stay
 * deterministic.
 */
export function recordIdForRow(nativeId: string): string {
  return parseUuid(nativeId) ?? uuidV5(NS.zeroclaw, nativeId);
}

export interface RowContext {
  agentId: string;
  /** Fallback timestamp (the injected clock) for unparseable dates. */
  now: string;
  warnings: string[];
  /**
   * Whether the `memories.id` column's declared type turns an id's text back into the value the
   * source stored (`idTextRestores`): then a numeric id travels as its text, as it always has.
   */
  idTextRestores: boolean;
}

/**
 * Whether a column of this declared type stores the text of a value as the value itself (SQLite's
 * type affinity, "Determination Of Column Affinity"): TEXT affinity keeps text, INTEGER, REAL and
 * NUMERIC turn a number's text into that number. A column with no type or a BLOB type (no
 * affinity) stores text as text, so a number there has to travel as a number.
 */
export function textRestoresValue(declaredType: string): boolean {
  const type = declaredType.toUpperCase();
  if (type.includes('INT')) return true;
  if (type.includes('CHAR') || type.includes('CLOB') || type.includes('TEXT')) return true;
  return !(type.includes('BLOB') || type.trim() === '');
}

/** One `memories` row (column → value as better-sqlite3 returns it) → one memory record. */
export function rowToRecord(row: Record<string, unknown>, ctx: RowContext): MemoryRecord {
  const nativeId = String(row.id);
  const id = recordIdForRow(nativeId);
  const category = nonEmptyString(row.category) ?? 'core';
  const key = typeof row.key === 'string' ? row.key : '';
  const createdAt = timestamp(row.created_at ?? row.timestamp, 'created_at', nativeId, ctx);
  const updatedAt = row.updated_at === undefined ? createdAt : timestamp(row.updated_at, 'updated_at', nativeId, ctx);
  const supersededBy = nonEmptyString(row.superseded_by);
  const sessionId = nonEmptyString(row.session_id);
  const raw = rawSourceFormat(row, nativeId !== id, ctx.idTextRestores);
  const record: MemoryRecord = {
    id,
    agent_id: ctx.agentId,
    content: contentOf(row.content, nativeId, ctx),
    memory_type: memoryTypeForCategory(category),
    category,
    source: {
      runtime: 'zeroclaw',
      origin: 'sqlite',
      extraction_method: 'agent_written',
      ...(sessionId !== null ? { session_id: sessionId } : {}),
    },
    temporal: { created_at: createdAt, updated_at: updatedAt },
    status: supersededBy !== null ? 'superseded' : 'active',
    namespace: nonEmptyString(row.namespace) ?? 'default',
    tags: tagsFor(category, key),
  };
  const supersedes = supersededBy !== null ? parseUuid(supersededBy) : null;
  if (supersedes !== null) record.supersedes = supersedes;
  if (typeof row.importance === 'number' && Number.isFinite(row.importance)) {
    record.confidence = Math.min(1, Math.max(0, row.importance));
  }
  if (row.embedding instanceof Uint8Array && row.embedding.byteLength > 0) {
    const decoded = decodeEmbedding(row.embedding);
    raw.embedding_encoding = decoded.encoding;
    if (decoded.vector !== null) record.embeddings = [embeddingEntry(decoded.vector, updatedAt)];
    else raw.embedding_base64 = decoded.base64 ?? '';
  } else if (row.embedding !== null && row.embedding !== undefined) {
    // No vector (TEXT, a number, an empty BLOB another writer put there): kept as it is, for a restore to write back.
    const scalar = toJsonScalar(row.embedding);
    if (scalar !== undefined) raw.embedding = scalar;
  }
  record.raw_source_format = sortKeys(raw);
  return orderRecordFields(record);
}

function tagsFor(category: string, key: string): string[] {
  const tags = [category];
  if (category !== 'zeroclaw') tags.push('zeroclaw');
  if (AUTO_SAVE_PREFIXES.some((p) => key.startsWith(p)) && !tags.includes('auto_save')) tags.push('auto_save');
  return tags;
}

/**
 * Every native column except the structural ones; `id` only when it differs from the record id: its
 * text where the id column's type turns that text back into the stored value (`idTextRestores`: the
 * record is the same as before lineage carried ids' types, and a large INTEGER keeps every digit),
 * else as the row holds it (a number in a column of no type, so that a restore writes a number
 * back, not its text); a NULL id as null.
 */
function rawSourceFormat(row: Record<string, unknown>, nonCanonicalId: boolean, idTextRestores: boolean): JsonObject {
  const raw: JsonObject = {};
  for (const [column, value] of Object.entries(row)) {
    if (STRUCTURAL_COLUMNS.has(column)) continue;
    const scalar = toJsonScalar(value);
    if (scalar !== undefined) raw[column] = scalar;
  }
  if (nonCanonicalId) {
    const id = idTextRestores && row.id !== null ? String(row.id) : toJsonScalar(row.id);
    if (id !== undefined) raw.id = id;
  }
  return raw;
}

/**
 * A column value as JSON. A BLOB (outside `embedding`, which has its own field) travels as
 * `{"$base64": "..."}`, as Hermes rows do (`hermes/row-json.ts`), so a restore writes it back.
 */
export function toJsonScalar(value: unknown): JsonValue | undefined {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value === 'bigint') return Number(value);
  if (value instanceof Uint8Array) return { $base64: Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('base64') };
  return undefined;
}

function sortKeys(obj: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const key of Object.keys(obj).sort()) out[key] = obj[key];
  return out;
}

/**
 * A row's `content` as text. ZeroClaw writes text; a BLOB put there by another writer is taken as
 * its UTF-8 reading, and said so — and that the reading is not exact when the bytes are not UTF-8
 * (the record, and so a restore, holds U+FFFD for them).
 */
function contentOf(value: unknown, nativeId: string, ctx: RowContext): string {
  if (typeof value === 'string') return value;
  if (!(value instanceof Uint8Array)) return String(value ?? '');
  const bytes = Buffer.from(value.buffer, value.byteOffset, value.byteLength);
  const text = bytes.toString('utf8');
  const valid = Buffer.from(text, 'utf8').equals(bytes);
  ctx.warnings.push(`memories row ${nativeId}: content is a blob of ${value.byteLength} bytes, not text; taken as its UTF-8 reading${valid ? '' : ', which is not exact: the bytes that are not UTF-8 became U+FFFD'}`);
  return text;
}

function timestamp(value: unknown, column: string, nativeId: string, ctx: RowContext): string {
  const parsed = typeof value === 'string' ? normalizeRfc3339(value) : null;
  if (parsed !== null) return parsed;
  ctx.warnings.push(`memories row ${nativeId}: ${column} ${JSON.stringify(value ?? null)} is not RFC 3339; using the export time`);
  return ctx.now;
}

function nonEmptyString(value: unknown): string | null {
  return typeof value === 'string' && value.length > 0 ? value : null;
}
