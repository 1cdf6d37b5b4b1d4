/**
 * The one search engine behind GET /api/search, the dashboard and `lineage search`: candidate
 * versions (candidates.ts), the exact matcher (match.ts), one appearance per (record, sequence),
 * the fact's status per agent (status.ts), "did you mean" when nothing matches (suggest.ts).
 */
import type { LineageDb } from '@/db/client';
import { LedgerError } from '@/lib/ledger/errors';
import { candidateVersions, withText, type HitMeta, type SearchScope, type ShownHit } from './candidates';
import { compileMatcher, type Matcher } from './match';
import { firstAppearances, groupByAgent } from './order';
import { searchLimit } from './options';
import { parseSearchQuery, type ParsedQuery } from './parse-query';
import { snippetAround } from './snippet';
import { isMoveSource, latestSequences, recordEvents, sharedSequences, type RecordEvents } from './record-events';
import { factStatus, NEVER_SEEN, type FactStatus, type RecordTimeline } from './status';
import { suggestTerms, type Suggestion } from './suggest';

export interface Appearance {
  agent_id: string;
  record_id: string;
  sequence: number;
  synced_at: string;
  origin_file: string | null;
  /**
   * The version's op: create, update, move (from another file) or rename (a move within its file:
   * its heading changed, its body kept — provenance.ts `linkMoves`; the lineage page, blame and the
   * changes feed say "renamed" for it too). `appearanceOp`.
   */
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

/** Matching versions, one per (record, sequence), and the same grouped by agent (in the same order). */
interface Found { hits: HitMeta[]; byAgent: Map<string, HitMeta[]> }

/** Matching versions, one per (record, sequence): those whose record's last entry at that sequence matches. */
function findAppearances(db: LineageDb, matcher: Matcher, parsed: ParsedQuery, scope: SearchScope, events: RecordEvents): Found {
  const hits = candidateVersions(db, parsed.terms, scope, (content) => matcher.test(content));
  const byAgent = groupByAgent(hits);
  const shared = sharedSequences(db, [...byAgent.keys()]);
  if (shared.size === 0) return { hits, byAgent };
  const hidden = new Set<HitMeta>();
  for (const [agentId, seqs] of shared) {
    for (const h of byAgent.get(agentId) ?? []) {
      if (seqs.has(h.seq) && events.hidden(agentId, h.record_id, h.seq, h.entry_kind)) hidden.add(h);
    }
  }
  if (hidden.size === 0) return { hits, byAgent };
  const kept = hits.filter((h) => !hidden.has(h));
  return { hits: kept, byAgent: groupByAgent(kept) };
}

/**
 * An agent's matched records, each by its last appearance, latest first (ties in hit order). The
 * latest is found by one scan; the rest are ordered only when the caller asks for more, which a
 * fact still present in the agent's latest record never does.
 */
function* lastAppearances(hits: readonly HitMeta[]): Generator<HitMeta> {
  let latest = hits[0]!;
  for (const h of hits) if (h.seq > latest.seq) latest = h;
  yield latest;
  const last = new Map<string, HitMeta>();
  for (const h of hits) {
    const seen = last.get(h.record_id);
    if (!seen || h.seq > seen.seq) last.set(h.record_id, h);
  }
  last.delete(latest.record_id);
  yield* [...last.values()].sort((x, y) => y.seq - x.seq);
}

/**
 * Each agent's status (status.ts) from its records' timelines cut down to what decides it: a record's
 * last appearance and the event that follows it (its next version or a move away). Only the run
 * ending last in a record can be the fact's last sight in the agent, and a record that nothing
 * follows still holds it. Records are taken latest appearance first, and the first that still holds
 * the fact settles the agent as present, so a fact present in a broad agent costs a few lookups.
 * (The status does not depend on the order the records are taken in: one that holds the fact makes
 * it present whatever came before, and without one every record is taken.)
 */
function agentStatuses(db: LineageDb, byAgent: ReadonlyMap<string, readonly HitMeta[]>, agents: readonly string[], events: RecordEvents): AgentFactStatus[] {
  const latest = latestSequences(db, agents);
  return agents.map((agent_id) => {
    const timelines: RecordTimeline[] = [];
    for (const last of lastAppearances(byAgent.get(agent_id)!)) {
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
        isMoveSource: (recordId, seq) => isMoveSource(db, agent_id, recordId, seq),
      }),
    };
  });
}

/**
 * An appearance's op: a version's stored op, but `rename` for a move that stayed in its file (the
 * moved-from record's file is the version's), as the dashboard's other pages tell a rename from a
 * move (components/lineage/MoveStep.tsx). Both engines call it (lib/storage/pg/search.ts).
 */
export function appearanceOp(hit: { op: string; origin_file: string | null; from_file: string | null }): string {
  return hit.op === 'move' && hit.from_file !== null && hit.from_file === hit.origin_file ? 'rename' : hit.op;
}

function toAppearance(hit: ShownHit, matcher: Matcher): Appearance {
  const { snippet, highlights } = snippetAround(hit.content, matcher.ranges(hit.content));
  return { agent_id: hit.agent_id, record_id: hit.record_id, sequence: hit.seq, synced_at: hit.synced_at, origin_file: hit.origin_file, op: appearanceOp(hit), snippet, highlights };
}

/** The number of appearances of a query, for checking suggestions. */
export function countAppearances(db: LineageDb, parsed: ParsedQuery, scope: SearchScope): number {
  return findAppearances(db, compileMatcher(parsed.terms), parsed, scope, recordEvents(db)).hits.length;
}

export function searchHistory(params: SearchParams): SearchResult {
  const parsed = parseSearchQuery(params.q);
  const limit = searchLimit(params.limit);
  const offset = params.offset ?? 0;
  if (!Number.isSafeInteger(offset) || offset < 0) throw new LedgerError('invalid_input', `offset must be a non-negative integer, got ${String(offset)}`);
  const scope: SearchScope = { ...(params.agentId !== undefined ? { agentId: params.agentId } : {}), ...(params.tenantId !== undefined ? { tenantId: params.tenantId } : {}) };
  const matcher = compileMatcher(parsed.terms);
  const events = recordEvents(params.db);
  const { hits: appearances, byAgent } = findAppearances(params.db, matcher, parsed, scope, events);
  const { head, agents } = firstAppearances(appearances, 1 + offset + limit, byAgent);
  const statuses = agentStatuses(params.db, byAgent, agents, events);
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
