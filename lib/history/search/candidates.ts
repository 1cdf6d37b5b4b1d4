/**
 * Candidate versions for a query, read through the word index (`record_versions_words`, whose text
 * index-text.ts makes): every term that has index tokens is asked for as a phrase (`"t1 t2"`, a
 * prefix term's last token with `*`), all of them ANDed. When every term is made of whole words the
 * index's answer is exact and only the hits' narrow columns are read (`record_versions_hits_idx`);
 * otherwise it is a superset, read with the content for the exact matcher to filter. A query
 * without index tokens (only fragments: words of one or two characters, matched inside words) scans
 * the searchable versions, narrowed by `instr` on the short words' case variants. CROSS JOIN keeps
 * the index as the outer loop (with an agent filter SQLite would otherwise walk that agent's
 * versions and run the MATCH per row).
 */
import { sql, type SQL } from 'drizzle-orm';
import type { LineageDb } from '@/db/client';
import { tenantSql, type TenantScope } from '../queries/common';
import { variantsOf } from './fold-variants';
import { indexPhrase } from './index-text';
import type { QueryTerm } from './parse-query';

/** What a search reads of every hit. */
export interface HitMeta {
  id: number;
  agent_id: string;
  record_id: string;
  seq: number;
  entry_kind: string;
  op: string;
  synced_at: string;
}

/** A hit with its text, read for the hits a page shows (and for the matcher, when the index is not exact). */
export interface VersionHit extends HitMeta {
  origin_file: string | null;
  content: string;
}

export interface SearchScope { agentId?: string; tenantId?: TenantScope }

/** The index query for `terms` (`"t1 t2" AND "t3" *`), and whether its answer is exact; null when no term has index tokens. */
export function indexQuery(terms: readonly QueryTerm[]): { expression: string; exact: boolean } | null {
  const phrases = terms.map(indexPhrase);
  const asked = phrases.filter((p) => p.tokens.length > 0);
  if (asked.length === 0) return null;
  // Tokens hold no quote (a quote is punctuation, written `α22ω`).
  const expression = asked.map((p) => `"${p.tokens.join(' ')}"${p.prefix ? ' *' : ''}`).join(' AND ');
  return { expression, exact: phrases.every((p) => p.exact) };
}

/** `(instr(content, v1) > 0 OR …)` for each word of at most 2 characters, when its variants are few. */
function shortWordFilter(terms: readonly QueryTerm[]): SQL {
  const parts: SQL[] = [];
  for (const word of new Set(terms.flatMap((t) => t.words))) {
    const chars = [...word];
    if (chars.length > 2) continue;
    let forms = [''];
    for (const ch of chars) forms = forms.flatMap((f) => variantsOf(ch).map((v) => f + v));
    if (forms.length > 32) continue;
    parts.push(sql`AND (${sql.join(forms.map((f) => sql`instr(v.content, ${f}) > 0`), sql` OR `)})`);
  }
  return sql.join(parts, sql` `);
}

function scopeSql(scope: SearchScope): SQL {
  return sql`
    ${scope.agentId === undefined ? sql`` : sql`AND v.agent_id = ${scope.agentId.toLowerCase()}`}
    ${scope.tenantId === undefined ? sql`` : sql`AND EXISTS (SELECT 1 FROM agents a WHERE a.id = v.agent_id ${tenantSql('a', scope.tenantId)})`}`;
}

const META = sql`v.id, v.agent_id, v.record_id, v.seq, v.entry_kind, v.op, v.synced_at`;
type MetaRow = [id: number, agent_id: string, record_id: string, seq: number, entry_kind: string, op: string, synced_at: string];
type TextRow = [...MetaRow, content: string];

/**
 * The versions that hold the query: `keep` (the exact matcher) is asked only where the index is
 * not exact. Rows are read as arrays and made objects only when kept: a broad query reads
 * thousands of rows, and row objects made by the driver cost more than the rows.
 */
export function candidateVersions(db: LineageDb, terms: readonly QueryTerm[], scope: SearchScope, keep: (content: string) => boolean): HitMeta[] {
  const query = indexQuery(terms);
  if (query?.exact) {
    // The narrow index's partial condition (op <> 'delete') is stated for the planner; every indexed version meets it.
    const rows = db.db.values<MetaRow>(sql`
      SELECT ${META} FROM record_versions_words f CROSS JOIN record_versions v INDEXED BY record_versions_hits_idx ON v.id = f.rowid
      WHERE record_versions_words MATCH ${query.expression} AND v.op <> 'delete' ${scopeSql(scope)}`);
    return rows.map(([id, agent_id, record_id, seq, entry_kind, op, synced_at]) => ({ id, agent_id, record_id, seq, entry_kind, op, synced_at }));
  }
  const rows = query
    ? db.db.values<TextRow>(sql`
      SELECT ${META}, v.content FROM record_versions_words f CROSS JOIN record_versions v ON v.id = f.rowid
      WHERE record_versions_words MATCH ${query.expression} ${scopeSql(scope)}`)
    : db.db.values<TextRow>(sql`
      SELECT ${META}, v.content FROM record_versions_searchable s CROSS JOIN record_versions v ON v.id = s.id
      WHERE 1 ${scopeSql(scope)} ${shortWordFilter(terms)}`);
  const out: HitMeta[] = [];
  for (const [id, agent_id, record_id, seq, entry_kind, op, synced_at, content] of rows) {
    if (keep(content)) out.push({ id, agent_id, record_id, seq, entry_kind, op, synced_at });
  }
  return out;
}

/** `hits` with their file and content (a page's few: read by id). */
export function withText<T extends HitMeta>(db: LineageDb, hits: readonly T[]): (T & VersionHit)[] {
  if (hits.length === 0) return [];
  const text = db.sqlite.prepare('SELECT origin_file, content FROM record_versions WHERE id = ?').raw();
  return hits.map((h) => {
    const [origin_file, content] = text.get(h.id) as [string | null, string];
    return { ...h, origin_file, content };
  });
}
