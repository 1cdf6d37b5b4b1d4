/** Shared pieces of the query verbs: agent lookup with tenant scope, limits, cursors, snippets. */
import { sql, type SQL } from 'drizzle-orm';
import type { LineageDb } from '@/db/client';
import type { AgentRow } from '@/db/schema';
import { LedgerError, type TenantScope } from '@/lib/ledger';
import { firstRow } from './prepared';
import { echoInput } from '@/lib/core/echo';
import { sha256Hex } from '@/lib/core/uuid';

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

/**
 * A page size as asked: `fallback` when absent, else a whole number in 1…max — one past `max` is
 * refused in words that say the bound (as the HTTP routes refuse it), never cut to `max` without a word.
 */
export function checkLimit(limit: number | undefined, fallback: number, max: number): number {
  if (limit === undefined) return fallback;
  if (!Number.isSafeInteger(limit) || limit < 1) throw new LedgerError('invalid_input', `limit must be a positive integer, got ${String(limit)}`);
  if (limit > max) throw new LedgerError('invalid_input', `The page size (limit) must be at most ${max}, got ${limit}.`);
  return limit;
}

/** Checks `seq` is a sequence of the agent (0…latest). */
export function assertSequence(agent: AgentRow, seq: number): void {
  const latest = agent.latest_sequence;
  if (latest === null) throw new LedgerError('never_synced', `agent ${agent.id} has never been synced`);
  if (!Number.isSafeInteger(seq) || seq < 0 || seq > latest) {
    throw new LedgerError('sequence_out_of_range', `sequence ${seq} is outside 0..${latest} for agent ${agent.id}`, { latest });
  }
}

/**
 * What a cursor pages: the list's name and everything that chooses its rows or their order (the
 * agent, the sequence, the filters, the op kind, the order). A cursor carries a digest of it, so a
 * cursor given out by one list is refused by any other (another agent, filter or order) in words,
 * instead of paging that other list from some place in it. Values as the caller gave them: a
 * filter absent is null.
 */
export type CursorList = readonly [name: string, ...choices: unknown[]];

/** 16 hex digits of the list's SHA-256: deterministic, the same on every backend and process. */
function listTag(list: CursorList): string {
  return sha256Hex(Buffer.from(JSON.stringify(list.map((v) => v ?? null)), 'utf8')).slice(0, 16);
}

const TAG = /^[0-9a-f]{16}$/;

/** An opaque cursor: base64url JSON of the list's digest and the position after which the next page starts. */
export function encodeCursor(list: CursorList, position: unknown): string {
  return Buffer.from(JSON.stringify([listTag(list), position]), 'utf8').toString('base64url');
}

/**
 * The position of a cursor `list` gave out; `invalid_input` in words for one another list gave out
 * ("belongs to another search or list") and for anything else ("not one this list gave out").
 */
export function decodeCursor<T>(cursor: string, list: CursorList, check: (v: unknown) => v is T): T {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    // refused below
  }
  if (Array.isArray(value) && value.length === 2 && typeof value[0] === 'string' && TAG.test(value[0])) {
    if (value[0] !== listTag(list)) {
      throw new LedgerError('invalid_input', 'This paging cursor belongs to another search or list (another agent, sequence, filter or order); start again from the first page.');
    }
    if (check(value[1])) return value[1];
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
