/**
 * The one search engine behind GET /api/search, the dashboard and `lineage search`: candidate
 * versions (candidates.ts), the exact matcher (match.ts), one appearance per (record, sequence),
 * the fact's status per agent (status.ts), "did you mean" when nothing matches (suggest.ts).
 */
import { sql } from 'drizzle-orm';
import type { LineageDb } from '@/db/client';
import { LedgerError } from '@/lib/ledger/errors';
import { clampLimit } from '../queries/common';
import { candidateVersions, withText, type HitMeta, type SearchScope, type VersionHit } from './candidates';
import { compileMatcher, type Matcher } from './match';
import { firstAppearances } from './order';
import { parseSearchQuery, type ParsedQuery } from './parse-query';
import { snippetAround } from './snippet';
import { recordEvents, sharedSequences, type RecordEvents } from './record-events';
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

/** Matching versions, one per (record, sequence): those whose record's last entry at that sequence matches. */
function findAppearances(db: LineageDb, matcher: Matcher, parsed: ParsedQuery, scope: SearchScope, events: RecordEvents): HitMeta[] {
  const hits = candidateVersions(db, parsed.terms, scope, (content) => matcher.test(content));
  const shared = sharedSequences(db, [...new Set(hits.map((h) => h.agent_id))]);
  return hits.filter((h) => !shared.has(`${h.agent_id}\u0000${h.seq}`) || !events.hidden(h.agent_id, h.record_id, h.seq, h.entry_kind));
}

/**
 * Each agent's status (status.ts) from its records' timelines cut down to what decides it: a record's
 * last appearance and the event that follows it (its next version or a move away). Only the run
 * ending last in a record can be the fact's last sight in the agent, and a record that nothing
 * follows still holds it. Records are taken latest appearance first, and the first that still holds
 * the fact settles the agent as present, so a fact present in a broad agent costs a few lookups.
 */
function agentStatuses(db: LineageDb, appearances: readonly HitMeta[], agents: readonly string[], events: RecordEvents): AgentFactStatus[] {
  const lastPerRecord = new Map<string, Map<string, HitMeta>>();
  for (const a of appearances) {
    let records = lastPerRecord.get(a.agent_id);
    if (!records) lastPerRecord.set(a.agent_id, (records = new Map()));
    const seen = records.get(a.record_id);
    if (!seen || a.seq > seen.seq) records.set(a.record_id, a);
  }
  const latest = new Map(db.db.all<{ id: string; latest_sequence: number | null }>(sql`
    SELECT id, latest_sequence FROM agents WHERE id IN (SELECT value FROM json_each(${JSON.stringify(agents)}))`).map((a) => [a.id, a.latest_sequence ?? 0]));
  const moveSource = db.sqlite.prepare('SELECT 1 FROM record_versions WHERE agent_id = ? AND moved_from = ? AND seq = ? LIMIT 1');
  return agents.map((agent_id) => {
    const timelines: RecordTimeline[] = [];
    for (const last of [...lastPerRecord.get(agent_id)!.values()].sort((x, y) => y.seq - x.seq)) {
      const held = { seq: last.seq, op: last.op, matches: true };
      const next = events.after(agent_id, last.record_id, last.seq);
      timelines.push({ record_id: last.record_id, versions: next ? [held, { seq: next.seq, matches: false, get op() { return next.op; } }] : [held] });
      if (!next) break;
    }
    return {
      agent_id,
      ...factStatus({
        latestSequence: latest.get(agent_id) ?? 0,
        timelines,
        isMoveSource: (recordId, seq) => moveSource.get(agent_id, recordId, seq) !== undefined,
      }),
    };
  });
}

function toAppearance(hit: VersionHit, matcher: Matcher): Appearance {
  const { snippet, highlights } = snippetAround(hit.content, matcher.ranges(hit.content));
  return { agent_id: hit.agent_id, record_id: hit.record_id, sequence: hit.seq, synced_at: hit.synced_at, origin_file: hit.origin_file, op: hit.op, snippet, highlights };
}

/** The number of appearances of a query, for checking suggestions. */
export function countAppearances(db: LineageDb, parsed: ParsedQuery, scope: SearchScope): number {
  return findAppearances(db, compileMatcher(parsed.terms), parsed, scope, recordEvents(db)).length;
}

export function searchHistory(params: SearchParams): SearchResult {
  const parsed = parseSearchQuery(params.q);
  const limit = clampLimit(params.limit, 50, 500);
  const offset = params.offset ?? 0;
  if (!Number.isSafeInteger(offset) || offset < 0) throw new LedgerError('invalid_input', `offset must be a non-negative integer, got ${String(offset)}`);
  const scope: SearchScope = { ...(params.agentId !== undefined ? { agentId: params.agentId } : {}), ...(params.tenantId !== undefined ? { tenantId: params.tenantId } : {}) };
  const matcher = compileMatcher(parsed.terms);
  const events = recordEvents(params.db);
  const appearances = findAppearances(params.db, matcher, parsed, scope, events);
  const { head, agents } = firstAppearances(appearances, 1 + offset + limit);
  const statuses = agentStatuses(params.db, appearances, agents, events);
  // Text (file, content: the snippets) only for what the page shows.
  const [first, ...later] = withText(params.db, head.length > 0 ? [head[0]!, ...head.slice(1 + offset)] : []);
  const { agent_id: _, ...status } = statuses.find((s) => s.agent_id === first?.agent_id) ?? { agent_id: '', ...NEVER_SEEN };
  return {
    query: parsed.text,
    first: first ? toAppearance(first, matcher) : null,
    appearances: later.map((a) => toAppearance(a, matcher)),
    total: appearances.length,
    offset,
    status,
    statuses,
    suggestions: appearances.length === 0 ? suggestTerms(params.db, parsed, scope) : [],
  };
}
