import { sql, type SQL } from 'drizzle-orm';
import type { LineageDb } from '@/db/client';
import { LedgerError } from '@/lib/ledger';
import { clampLimit, snippet, tenantSql, type TenantScope } from './common';

export interface Appearance {
  agent_id: string;
  record_id: string;
  sequence: number;
  synced_at: string;
  origin_file: string | null;
  snippet: string;
}

export interface SearchResult {
  query: string;
  first: Appearance | null;
  /** Later appearances, oldest → newest, paged by `offset`/`limit`. */
  appearances: Appearance[];
  /** Every appearance, the first included. */
  total: number;
}

/** FTS5 phrase syntax: the text in double quotes, inner quotes doubled. */
function ftsPhrase(text: string): string {
  return `"${text.replace(/"/g, '""')}"`;
}

/**
 * "When did this fact first appear": every version (create or update, not tombstones) whose content
 * contains `q` case-insensitively, across every record including ones later moved or deleted,
 * oldest first by sync time then sequence. The trigram FTS index answers terms of 3+ characters;
 * shorter ones fall back to a scan. CROSS JOIN keeps the FTS index as the outer loop: with an
 * agent filter SQLite would otherwise walk that agent's versions and re-run the MATCH per row.
 */
export function searchFirstAppearance(params: {
  db: LineageDb; tenantId?: TenantScope; q: string; agentId?: string; limit?: number; offset?: number;
}): SearchResult {
  const q = params.q.trim();
  if (q.length === 0) throw new LedgerError('invalid_input', 'q must not be empty');
  if (q.length > 500) throw new LedgerError('invalid_input', 'q must be at most 500 characters');
  // SQLite's text functions and FTS5 stop at a NUL: refused, not an internal error.
  if (q.includes('\u0000')) throw new LedgerError('invalid_input', 'q must not contain a NUL character');
  const limit = clampLimit(params.limit, 50, 500);
  const offset = params.offset ?? 0;
  if (!Number.isSafeInteger(offset) || offset < 0) throw new LedgerError('invalid_input', `offset must be a non-negative integer, got ${String(offset)}`);
  const scope: SQL = sql`
    AND v.op <> 'delete'
    ${params.agentId === undefined ? sql`` : sql`AND v.agent_id = ${params.agentId.toLowerCase()}`}
    ${params.tenantId === undefined ? sql`` : sql`AND EXISTS (SELECT 1 FROM agents a WHERE a.id = v.agent_id ${tenantSql('a', params.tenantId)})`}`;
  const order = sql`ORDER BY v.synced_at, v.seq, v.entry_kind, v.agent_id, v.record_id`;
  const ids = [...q].length >= 3
    ? params.db.db.all<{ id: number }>(sql`
        SELECT v.id FROM record_versions_fts f CROSS JOIN record_versions v ON v.id = f.rowid
        WHERE record_versions_fts MATCH ${ftsPhrase(q)} ${scope} ${order}`)
    : params.db.db.all<{ id: number }>(sql`
        SELECT v.id FROM record_versions v WHERE instr(lower(v.content), lower(${q})) > 0 ${scope} ${order}`);
  const wanted = [ids[0], ...ids.slice(1 + offset, 1 + offset + limit)].filter((r): r is { id: number } => r !== undefined).map((r) => r.id);
  const rows = wanted.length === 0 ? [] : params.db.db.all<Omit<Appearance, 'snippet'> & { id: number; content: string }>(sql`
    SELECT v.id, v.agent_id, v.record_id, v.seq AS sequence, v.synced_at, v.origin_file, v.content
    FROM record_versions v WHERE v.id IN (SELECT value FROM json_each(${JSON.stringify(wanted)}))`);
  const byId = new Map(rows.map(({ id, content, ...r }) => [id, { ...r, snippet: snippet(content, q) }]));
  const found = wanted.map((id) => byId.get(id)).filter((a): a is Appearance => a !== undefined);
  return { query: q, first: found[0] ?? null, appearances: found.slice(1), total: ids.length };
}
