/**
 * Candidate versions for a query: every searchable version that may hold it, a superset the exact
 * matcher then filters. The trigram index answers when some word has a run of 3+ characters it
 * folds like we do (`"run" AND "run" …`, all as literal phrases: no query text is FTS syntax);
 * otherwise the searchable versions are scanned, narrowed by `instr` on the case variants of short
 * words. CROSS JOIN keeps the index as the outer loop (with an agent filter SQLite would otherwise
 * walk that agent's versions and re-run the MATCH per row).
 */
import { sql, type SQL } from 'drizzle-orm';
import type { LineageDb } from '@/db/client';
import { tenantSql, type TenantScope } from '../queries/common';
import { variantsOf } from './fold-variants';
import { ftsFoldsLikeUs } from './fts-gaps';
import type { QueryTerm } from './parse-query';

export interface VersionHit {
  id: number;
  agent_id: string;
  record_id: string;
  seq: number;
  entry_kind: string;
  op: string;
  synced_at: string;
  origin_file: string | null;
  content: string;
}

export interface SearchScope { agentId?: string; tenantId?: TenantScope }

/** Runs of 3+ characters of the folded words that the index folds as we do. */
function ftsRuns(terms: readonly QueryTerm[]): string[] {
  const runs = new Set<string>();
  for (const word of terms.flatMap((t) => t.words)) {
    let run: string[] = [];
    const flush = () => {
      if (run.length >= 3) runs.add(run.join(''));
      run = [];
    };
    for (const ch of word) {
      if (ftsFoldsLikeUs(ch)) run.push(ch);
      else flush();
    }
    flush();
  }
  return [...runs];
}

/** `"run" AND "run"` with inner quotes doubled, or null when no run can use the index. */
export function ftsExpression(terms: readonly QueryTerm[]): string | null {
  const runs = ftsRuns(terms);
  return runs.length === 0 ? null : runs.map((r) => `"${r.replace(/"/g, '""')}"`).join(' AND ');
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

const COLUMNS = sql`v.id, v.agent_id, v.record_id, v.seq, v.entry_kind, v.op, v.synced_at, v.origin_file, v.content`;
type Row = [id: number, agent_id: string, record_id: string, seq: number, entry_kind: string, op: string, synced_at: string, origin_file: string | null, content: string];

/**
 * The candidates whose content `keep` accepts (the exact matcher). Read as arrays and made objects
 * only when kept: a broad query reads thousands of rows, and row objects made by the driver cost
 * more than the rows.
 */
export function candidateVersions(db: LineageDb, terms: readonly QueryTerm[], scope: SearchScope, keep: (content: string) => boolean): VersionHit[] {
  const expression = ftsExpression(terms);
  const rows = expression !== null
    ? db.db.values<Row>(sql`
      SELECT ${COLUMNS} FROM record_versions_fts f CROSS JOIN record_versions v ON v.id = f.rowid
      WHERE record_versions_fts MATCH ${expression} ${scopeSql(scope)}`)
    : db.db.values<Row>(sql`
      SELECT ${COLUMNS} FROM record_versions_searchable s CROSS JOIN record_versions v ON v.id = s.id
      WHERE 1 ${scopeSql(scope)} ${shortWordFilter(terms)}`);
  const out: VersionHit[] = [];
  for (const [id, agent_id, record_id, seq, entry_kind, op, synced_at, origin_file, content] of rows) {
    if (keep(content)) out.push({ id, agent_id, record_id, seq, entry_kind, op, synced_at, origin_file, content });
  }
  return out;
}
