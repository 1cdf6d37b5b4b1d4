/** Shared pieces of the query verbs: agent lookup with tenant scope, limits, cursors, snippets. */
import { sql, type SQL } from 'drizzle-orm';
import type { LineageDb } from '@/db/client';
import type { AgentRow } from '@/db/schema';
import { LedgerError, type TenantScope } from '@/lib/ledger';
import { firstRow } from './prepared';
import { echoInput } from '@/lib/core/echo';

export type { TenantScope };

/** The agent when it exists inside the tenant scope, else null (routes answer 404). */
export function findAgent(db: LineageDb, agentId: string, tenantId?: TenantScope): AgentRow | null {
  const row = firstRow<AgentRow>(db.db, sql`SELECT * FROM agents WHERE id = ${agentId.toLowerCase()} ${tenantSql('agents', tenantId)}`);
  return row ?? null;
}

/** `AND <table>.tenant_id …` for a tenant scope (empty for undefined = all tenants). */
export function tenantSql(table: string, tenantId: TenantScope): SQL {
  if (tenantId === undefined) return sql``;
  return tenantId === null ? sql`AND ${sql.raw(table)}.tenant_id IS NULL` : sql`AND ${sql.raw(table)}.tenant_id = ${tenantId}`;
}

/** Clamps a page size into [1, max]. */
export function clampLimit(limit: number | undefined, fallback: number, max: number): number {
  if (limit === undefined) return fallback;
  if (!Number.isSafeInteger(limit) || limit < 1) throw new LedgerError('invalid_input', `limit must be a positive integer, got ${String(limit)}`);
  return Math.min(limit, max);
}

/** Checks `seq` is a sequence of the agent (0…latest). */
export function assertSequence(agent: AgentRow, seq: number): void {
  const latest = agent.latest_sequence;
  if (latest === null) throw new LedgerError('never_synced', `agent ${agent.id} has never been synced`);
  if (!Number.isSafeInteger(seq) || seq < 0 || seq > latest) {
    throw new LedgerError('sequence_out_of_range', `sequence ${seq} is outside 0..${latest} for agent ${agent.id}`, { latest });
  }
}

export function encodeCursor(value: unknown): string {
  return Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');
}

export function decodeCursor<T>(cursor: string, check: (v: unknown) => v is T): T {
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (check(value)) return value;
  } catch {
    // fall through to the error below
  }
  throw new LedgerError('invalid_input', `The paging cursor "${echoInput(cursor)}" is not one this list gave out; start again from the first page.`);
}

/**
 * `text` with its ASCII letters lowercased and nothing else changed: what SQLite's `lower()` does (and
 * the PostgreSQL backend's `translate` with it), so a needle lowered so is found in text lowered so.
 */
export function asciiLower(text: string): string {
  return text.replace(/[A-Z]+/g, (run) => run.toLowerCase());
}

/** A short window of `content` around the first case-insensitive match of `needle` (or its start). */
export function snippet(content: string, needle?: string, radius = 60): string {
  const at = needle ? content.toLowerCase().indexOf(needle.toLowerCase()) : -1;
  if (at < 0) return content.length > radius * 2 ? `${content.slice(0, radius * 2)}…` : content;
  const start = Math.max(0, at - radius);
  const end = Math.min(content.length, at + (needle?.length ?? 0) + radius);
  return `${start > 0 ? '…' : ''}${content.slice(start, end)}${end < content.length ? '…' : ''}`;
}

export function parseTags(text: string): string[] {
  try {
    const value: unknown = JSON.parse(text);
    return Array.isArray(value) ? value.filter((t): t is string => typeof t === 'string') : [];
  } catch {
    return [];
  }
}

/** The memory v4.1 tier carried as a `tier:<name>` tag, if any. */
export function tierOf(tags: readonly string[]): string | null {
  const tag = tags.find((t) => t.startsWith('tier:'));
  return tag ? tag.slice('tier:'.length) : null;
}

/**
 * For a move's row `alias`: the file of the record it moved from (that record's latest version
 * before the move); NULL for any other row.
 */
export function movedFromFile(alias: string) {
  const v = sql.raw(alias);
  return sql`CASE WHEN ${v}.op = 'move' THEN (
    SELECT p.origin_file FROM record_versions p WHERE p.agent_id = ${v}.agent_id AND p.record_id = ${v}.moved_from
      AND (p.seq < ${v}.seq OR (p.seq = ${v}.seq AND p.entry_kind < ${v}.entry_kind))
    ORDER BY p.seq DESC, p.entry_kind DESC LIMIT 1) END`;
}
