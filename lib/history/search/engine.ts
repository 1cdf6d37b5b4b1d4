/**
 * The one search engine behind GET /api/search, the dashboard and `lineage search`: candidate
 * versions (candidates.ts), the exact matcher (match.ts), one appearance per (record, sequence),
 * the fact's status per agent (status.ts), "did you mean" when nothing matches (suggest.ts).
 */
import { sql } from 'drizzle-orm';
import type { LineageDb } from '@/db/client';
import { LedgerError } from '@/lib/ledger/errors';
import { clampLimit } from '../queries/common';
import { candidateVersions, type SearchScope, type VersionHit } from './candidates';
import { compileMatcher, type Matcher } from './match';
import { parseSearchQuery, type ParsedQuery } from './parse-query';
import { snippetAround } from './snippet';
import { factStatus, NEVER_SEEN, type FactStatus, type RecordTimeline } from './status';
import { suggestTerms, type Suggestion } from './suggest';

export interface Appearance {
  agent_id: string;
  record_id: string;
  sequence: number;
  synced_at: string;
  origin_file: string | null;
  /** The version's op: create, update (or move). */
  op: string;
  snippet: string;
  /** [start, end) UTF-16 offsets in `snippet` of every match. */
  highlights: [number, number][];
}

export type AgentFactStatus = FactStatus & { agent_id: string };

export interface SearchResult {
  query: string;
  first: Appearance | null;
  /** Later appearances, oldest → newest, paged by `offset`/`limit`. */
  appearances: Appearance[];
  /** Every appearance, the first included. */
  total: number;
  offset: number;
  /** The fact's status in the agent searched, or across agents in the agent of the first appearance. */
  status: FactStatus;
  /** The status in every agent it appeared in, in order of first appearance. */
  statuses: AgentFactStatus[];
  /** When nothing matched: indexed terms within edit distance 2 of a query word, each with the query it gives. */
  suggestions: Suggestion[];
}

export interface SearchParams extends SearchScope {
  db: LineageDb;
  q: string;
  limit?: number;
  offset?: number;
}

interface VersionRow { id: number; agent_id: string; record_id: string; seq: number; entry_kind: string; op: string }

const key = (agent: string, record: string) => `${agent}\u0000${record}`;

/** Matching versions, one per (record, sequence): those whose record's last version at that sequence matches. */
function findAppearances(db: LineageDb, matcher: Matcher, parsed: ParsedQuery, scope: SearchScope) {
  const hits = new Map<number, VersionHit>();
  for (const v of candidateVersions(db, parsed.terms, scope)) if (matcher.test(v.content)) hits.set(v.id, v);
  const pairs = [...new Set([...hits.values()].map((h) => JSON.stringify([h.agent_id, h.record_id])))];
  const rows = pairs.length === 0 ? [] : db.db.all<VersionRow>(sql`
    SELECT v.id, v.agent_id, v.record_id, v.seq, v.entry_kind, v.op FROM json_each(${`[${pairs.join(',')}]`}) j
    CROSS JOIN record_versions v ON v.agent_id = j.value ->> 0 AND v.record_id = j.value ->> 1
    ORDER BY v.agent_id, v.record_id, v.seq, v.entry_kind`);
  const timelines = new Map<string, RecordTimeline & { agent_id: string }>();
  const appearances: VersionHit[] = [];
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i]!;
    const next = rows[i + 1];
    if (next && next.agent_id === row.agent_id && next.record_id === row.record_id && next.seq === row.seq) continue;
    const k = key(row.agent_id, row.record_id);
    let timeline = timelines.get(k);
    if (!timeline) timelines.set(k, (timeline = { agent_id: row.agent_id, record_id: row.record_id, versions: [] }));
    const hit = hits.get(row.id);
    timeline.versions.push({ seq: row.seq, op: row.op, matches: hit !== undefined });
    if (hit) appearances.push(hit);
  }
  addMovesAway(db, pairs, timelines);
  appearances.sort((a, b) => (a.synced_at < b.synced_at ? -1 : a.synced_at > b.synced_at ? 1 : 0)
    || a.seq - b.seq || a.entry_kind.localeCompare(b.entry_kind) || a.agent_id.localeCompare(b.agent_id) || a.record_id.localeCompare(b.record_id));
  return { appearances, timelines: [...timelines.values()] };
}

/** Each agent searched with the (agent, record) pairs of its matched records. */
function pairsPerAgent(pairs: readonly string[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const pair of pairs) {
    const agent = (JSON.parse(pair) as [string, string])[0];
    const list = out.get(agent);
    if (list) list.push(pair);
    else out.set(agent, [pair]);
  }
  return out;
}

/**
 * A record moved to another file has no version at the move's sequence (the moved-to record's
 * `move` row carries the content, with `moved_from` naming it): it stops holding the fact there,
 * as if edited away, so each such move is put into the moved-from record's timeline (op `moved`).
 * An agent's moves are few next to a broad search's matched records: when the agent has no more
 * moves than matched records they are all read from the moves index (one range), otherwise each
 * matched record's moves are looked up; either way only the matched records' moves are kept.
 */
function addMovesAway(db: LineageDb, pairs: readonly string[], timelines: Map<string, RecordTimeline & { agent_id: string }>): void {
  if (pairs.length === 0) return;
  const countMoves = db.sqlite.prepare('SELECT count(*) FROM (SELECT 1 FROM record_versions WHERE agent_id = ? AND moved_from IS NOT NULL LIMIT ?)').pluck();
  const moves: { agent_id: string; record_id: string; seq: number }[] = [];
  for (const [agent, agentPairs] of pairsPerAgent(pairs)) {
    const fewMoves = (countMoves.get(agent, agentPairs.length + 1) as number) <= agentPairs.length;
    moves.push(...(fewMoves
      ? db.db.all<{ agent_id: string; record_id: string; seq: number }>(sql`
          SELECT agent_id, moved_from AS record_id, seq FROM record_versions
          WHERE agent_id = ${agent} AND moved_from IS NOT NULL AND op = 'move'`)
      : db.db.all<{ agent_id: string; record_id: string; seq: number }>(sql`
          SELECT m.agent_id, m.moved_from AS record_id, m.seq FROM json_each(${`[${agentPairs.join(',')}]`}) j
          CROSS JOIN record_versions m ON m.agent_id = j.value ->> 0 AND m.moved_from = j.value ->> 1
          WHERE m.op = 'move'`)));
  }
  for (const move of moves) {
    const timeline = timelines.get(key(move.agent_id, move.record_id));
    if (!timeline || timeline.versions.some((v) => v.seq === move.seq)) continue;
    timeline.versions.push({ seq: move.seq, op: 'moved', matches: false });
    timeline.versions.sort((a, b) => a.seq - b.seq);
  }
}

function agentStatuses(db: LineageDb, appearances: readonly VersionHit[], timelines: readonly (RecordTimeline & { agent_id: string })[]): AgentFactStatus[] {
  const agents = [...new Set(appearances.map((a) => a.agent_id))];
  const latest = new Map(db.db.all<{ id: string; latest_sequence: number | null }>(sql`
    SELECT id, latest_sequence FROM agents WHERE id IN (SELECT value FROM json_each(${JSON.stringify(agents)}))`).map((a) => [a.id, a.latest_sequence ?? 0]));
  const moveSource = db.sqlite.prepare('SELECT 1 FROM record_versions WHERE agent_id = ? AND moved_from = ? AND seq = ? LIMIT 1');
  const perAgent = new Map<string, RecordTimeline[]>();
  for (const t of timelines) {
    const list = perAgent.get(t.agent_id);
    if (list) list.push(t);
    else perAgent.set(t.agent_id, [t]);
  }
  return agents.map((agent_id) => ({
    agent_id,
    ...factStatus({
      latestSequence: latest.get(agent_id) ?? 0,
      timelines: perAgent.get(agent_id) ?? [],
      isMoveSource: (recordId, seq) => moveSource.get(agent_id, recordId, seq) !== undefined,
    }),
  }));
}

function toAppearance(hit: VersionHit, matcher: Matcher): Appearance {
  const { snippet, highlights } = snippetAround(hit.content, matcher.ranges(hit.content));
  return { agent_id: hit.agent_id, record_id: hit.record_id, sequence: hit.seq, synced_at: hit.synced_at, origin_file: hit.origin_file, op: hit.op, snippet, highlights };
}

/** The number of appearances of a query, for checking suggestions. */
export function countAppearances(db: LineageDb, parsed: ParsedQuery, scope: SearchScope): number {
  return findAppearances(db, compileMatcher(parsed.terms), parsed, scope).appearances.length;
}

export function searchHistory(params: SearchParams): SearchResult {
  const parsed = parseSearchQuery(params.q);
  const limit = clampLimit(params.limit, 50, 500);
  const offset = params.offset ?? 0;
  if (!Number.isSafeInteger(offset) || offset < 0) throw new LedgerError('invalid_input', `offset must be a non-negative integer, got ${String(offset)}`);
  const scope: SearchScope = { ...(params.agentId !== undefined ? { agentId: params.agentId } : {}), ...(params.tenantId !== undefined ? { tenantId: params.tenantId } : {}) };
  const matcher = compileMatcher(parsed.terms);
  const { appearances, timelines } = findAppearances(params.db, matcher, parsed, scope);
  const statuses = agentStatuses(params.db, appearances, timelines);
  const first = appearances[0];
  const { agent_id: _, ...status } = statuses.find((s) => s.agent_id === first?.agent_id) ?? { agent_id: '', ...NEVER_SEEN };
  return {
    query: parsed.text,
    first: first ? toAppearance(first, matcher) : null,
    appearances: appearances.slice(1 + offset, 1 + offset + limit).map((a) => toAppearance(a, matcher)),
    total: appearances.length,
    offset,
    status,
    statuses,
    suggestions: appearances.length === 0 ? suggestTerms(params.db, parsed, scope) : [],
  };
}
