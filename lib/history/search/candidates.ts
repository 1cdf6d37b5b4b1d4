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
  // A term in each of its canonical forms (parse-query.ts), ORed: the index holds the content as written.
  const phrases = terms.map((t) => t.forms.map((words) => indexPhrase({ ...t, words })));
  const asked = phrases.filter((forms) => forms.every((p) => p.tokens.length > 0));
  if (asked.length === 0) return null;
  // Tokens hold no quote (a quote is punctuation, written `α22ω`).
  const expression = asked.map((forms) => {
    const alternatives = [...new Set(forms.map((p) => `"${p.tokens.join(' ')}"${p.prefix ? ' *' : ''}`))];
    return alternatives.length === 1 ? alternatives[0]! : `(${alternatives.join(' OR ')})`;
  }).join(' AND ');
  return { expression, exact: phrases.every((forms) => forms.every((p) => p.exact)) };
}

/** `(instr(content, v1) > 0 OR …)` over a short word's case variants, or null when it is longer or they are many. */
function shortWordCondition(word: string): SQL | null {
  const chars = [...word];
  if (chars.length > 2) return null;
  let variants = [''];
  for (const ch of chars) variants = variants.flatMap((f) => variantsOf(ch).map((v) => f + v));
  if (variants.length > 32) return null;
  return sql`(${sql.join(variants.map((f) => sql`instr(v.content, ${f}) > 0`), sql` OR `)})`;
}

/**
 * For each term, its words of at most 2 characters held by the content (above), in any one of the
 * term's canonical forms; a term with a form that has no such word narrows nothing.
 */
function shortWordFilter(terms: readonly QueryTerm[]): SQL {
  const parts: SQL[] = [];
  for (const term of terms) {
    const alternatives: SQL[] = [];
    for (const words of term.forms) {
      const conditions = [...new Set(words)].map(shortWordCondition).filter((c): c is SQL => c !== null);
      if (conditions.length === 0) break;
      alternatives.push(sql`(${sql.join(conditions, sql` AND `)})`);
    }
    if (alternatives.length === term.forms.length) parts.push(sql`AND (${sql.join(alternatives, sql` OR `)})`);
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

/** A hit as a page shows it: with the file a move came from (null for any other op), which tells a rename (engine.ts `appearanceOp`). */
export type ShownHit = VersionHit & { from_file: string | null };

/** `hits` with their file, content and, for a move, the file it came from (a page's few: read by id). */
export function withText<T extends HitMeta>(db: LineageDb, hits: readonly T[]): (T & ShownHit)[] {
  if (hits.length === 0) return [];
  // The moved-from record's file: its last version before the move (queries/common.ts `movedFromFile`).
  const text = db.sqlite.prepare(`SELECT v.origin_file, v.content, CASE WHEN v.op = 'move' THEN (
      SELECT p.origin_file FROM record_versions p WHERE p.agent_id = v.agent_id AND p.record_id = v.moved_from
        AND (p.seq < v.seq OR (p.seq = v.seq AND p.entry_kind < v.entry_kind))
      ORDER BY p.seq DESC, p.entry_kind DESC LIMIT 1) END
    FROM record_versions v WHERE v.id = ?`).raw();
  return hits.map((h) => {
    const [origin_file, content, from_file] = text.get(h.id) as [string | null, string, string | null];
    return { ...h, origin_file, content, from_file };
  });
}
