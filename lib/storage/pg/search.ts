/**
 * The search engine (lib/history/search/engine.ts) on PostgreSQL, with SQLite's answers: the same
 * parser, exact matcher, snippets, status and suggestions; only the candidate versions and the
 * timelines are read differently. Candidates: every searchable version (`op <> 'delete'`, the
 * trigram GIN index's predicate) whose content holds each folded query word as a substring,
 * written as a regular expression of character classes — per character every character that
 * folds to it (`variantsOf`) — so no PostgreSQL case mapping decides anything (pg_trgm's index
 * answers `~` and rechecks). That is a superset of the matches; the matcher then decides.
 */
import { type TenantScope } from '@/lib/history/queries/common';
import { searchLimit } from '@/lib/history/search/options';
import { appearanceOp, type AgentFactStatus, type Appearance, type SearchResult } from '@/lib/history/search/engine';
import type { VersionHit } from '@/lib/history/search/candidates';
import { variantsOf } from '@/lib/history/search/fold-variants';
import { compileMatcher, type Matcher } from '@/lib/history/search/match';
import { firstAppearances } from '@/lib/history/search/order';
import { formatQuery, parseSearchQuery, type ParsedQuery, type QueryTerm } from '@/lib/history/search/parse-query';
import { snippetAround } from '@/lib/history/search/snippet';
import { factStatus, NEVER_SEEN, type RecordTimeline } from '@/lib/history/search/status';
import { addTerms, editDistanceUpTo2, type Suggestion } from '@/lib/history/search/suggest';
import { LedgerError } from '@/lib/ledger/errors';
import { MOVED_FROM_FILE } from './changes';
import { first, Params, rows, tenantCondition, type Queryable } from './sql';

interface Scope { agentId?: string; tenantId?: TenantScope }

/** One character class (or the character itself) of an ARE, every member as a `\U` escape when not ASCII alphanumeric. */
function charClass(folded: string): string {
  const members = [...new Set(variantsOf(folded))].map((c) => (/^[A-Za-z0-9]$/.test(c) ? c : `\\U${c.codePointAt(0)!.toString(16).padStart(8, '0')}`));
  return members.length === 1 ? members[0]! : `[${members.join('')}]`;
}

/** A regular expression matching exactly the substrings that fold to `word`. */
export function wordPattern(word: string): string {
  return [...word].map(charClass).join('');
}

function scopeSql(p: Params, scope: Scope): string {
  return `${scope.agentId === undefined ? '' : `AND v.agent_id = ${p.add(scope.agentId.toLowerCase())}`}
    ${scope.tenantId === undefined ? '' : `AND EXISTS (SELECT 1 FROM agents a WHERE a.id = v.agent_id ${tenantCondition(p, 'a', scope.tenantId)})`}`;
}

/** The candidates' query: every searchable version holding each folded word (see the header). */
export function candidateQuery(terms: readonly QueryTerm[], scope: Scope): { text: string; params: Params } {
  const p = new Params();
  // Each term in any one of its canonical forms (parse-query.ts), all of that form's words.
  const filters = terms.map((t) => {
    const alternatives = t.forms.map((words) => [...new Set(words)].map((w) => `v.content ~ ${p.add(wordPattern(w))}`).join(' AND '));
    return alternatives.length === 1 ? `AND ${alternatives[0]}` : `AND ((${alternatives.join(') OR (')}))`;
  }).join(' ');
  const text = `SELECT v.id, v.agent_id, v.record_id, v.seq, v.entry_kind, v.op, v.synced_at, v.origin_file, v.content
    FROM record_versions v WHERE v.op <> 'delete' ${filters} ${scopeSql(p, scope)}`;
  return { text, params: p };
}

/**
 * The candidates and, for the records they belong to, every version (the timelines), the moves
 * away from them and their agents' latest sequences: one statement, one round trip. The matcher
 * then keeps the true hits, and only their records' rows are used, so the extra rows of candidates
 * the matcher refuses change nothing.
 */
function appearancesQuery(terms: readonly QueryTerm[], scope: Scope): { text: string; params: Params } {
  const { text, params } = candidateQuery(terms, scope);
  return {
    params,
    text: `WITH c AS MATERIALIZED (${text}),
      p AS (SELECT DISTINCT agent_id, record_id FROM c)
    SELECT (SELECT coalesce(json_agg(c), '[]') FROM c) AS candidates,
      (SELECT coalesce(json_agg(t ORDER BY t.agent_id COLLATE "C", t.record_id COLLATE "C", t.seq, t.entry_kind COLLATE "C"), '[]')
        FROM (SELECT v.id, v.agent_id, v.record_id, v.seq, v.entry_kind, v.op FROM p
          JOIN record_versions v ON v.agent_id = p.agent_id AND v.record_id = p.record_id) t) AS versions,
      (SELECT coalesce(json_agg(m), '[]') FROM (SELECT m.agent_id, m.moved_from AS record_id, m.seq FROM p
          JOIN record_versions m ON m.agent_id = p.agent_id AND m.moved_from = p.record_id WHERE m.op = 'move') m) AS moves,
      (SELECT coalesce(json_agg(a), '[]') FROM (SELECT id, latest_sequence FROM agents WHERE id IN (SELECT agent_id FROM p)) a) AS agents`,
  };
}

interface TimelineRow { id: number; agent_id: string; record_id: string; seq: number; entry_kind: string; op: string }
interface Rows { candidates: VersionHit[]; versions: TimelineRow[]; moves: { agent_id: string; record_id: string; seq: number }[]; agents: { id: string; latest_sequence: number | null }[] }

const key = (agent: string, record: string) => `${agent}\u0000${record}`;

interface Found {
  appearances: VersionHit[];
  timelines: (RecordTimeline & { agent_id: string })[];
  moveSources: Set<string>;
  latest: Map<string, number>;
}

async function findAppearances(db: Queryable, matcher: Matcher, parsed: ParsedQuery, scope: Scope): Promise<Found> {
  const { text, params } = appearancesQuery(parsed.terms, scope);
  const found = (await rows<Rows>(db, text, params))[0] ?? { candidates: [], versions: [], moves: [], agents: [] };
  const hits = new Map<number, VersionHit>();
  for (const v of found.candidates) if (matcher.test(v.content)) hits.set(v.id, v);
  const pairs = new Set([...hits.values()].map((h) => key(h.agent_id, h.record_id)));
  const versions = found.versions.filter((v) => pairs.has(key(v.agent_id, v.record_id)));
  const timelines = new Map<string, RecordTimeline & { agent_id: string }>();
  const appearances: VersionHit[] = [];
  for (let i = 0; i < versions.length; i++) {
    const row = versions[i]!;
    const next = versions[i + 1];
    if (next && next.agent_id === row.agent_id && next.record_id === row.record_id && next.seq === row.seq) continue;
    const k = key(row.agent_id, row.record_id);
    let timeline = timelines.get(k);
    if (!timeline) timelines.set(k, (timeline = { agent_id: row.agent_id, record_id: row.record_id, versions: [] }));
    const hit = hits.get(row.id);
    timeline.versions.push({ seq: row.seq, op: row.op, matches: hit !== undefined });
    if (hit) appearances.push(hit);
  }
  // Moves away (engine.ts addMovesAway): the moved-from record stops holding the fact at the move.
  const moveSources = new Set<string>();
  for (const move of found.moves) {
    if (!pairs.has(key(move.agent_id, move.record_id))) continue;
    moveSources.add(`${key(move.agent_id, move.record_id)}\u0000${move.seq}`);
    const timeline = timelines.get(key(move.agent_id, move.record_id));
    if (!timeline || timeline.versions.some((v) => v.seq === move.seq)) continue;
    timeline.versions.push({ seq: move.seq, op: 'moved', matches: false });
    timeline.versions.sort((a, b) => a.seq - b.seq);
  }
  const latest = new Map(found.agents.map((a) => [a.id, a.latest_sequence ?? 0]));
  return { appearances, timelines: [...timelines.values()], moveSources, latest };
}

function agentStatuses(found: Found, agents: readonly string[]): AgentFactStatus[] {
  return agents.map((agent_id) => ({
    agent_id,
    ...factStatus({
      latestSequence: found.latest.get(agent_id) ?? 0,
      timelines: found.timelines.filter((t) => t.agent_id === agent_id),
      isMoveSource: (recordId, seq) => found.moveSources.has(`${key(agent_id, recordId)}\u0000${seq}`),
    }),
  }));
}

function toAppearance(hit: VersionHit, matcher: Matcher, fromFiles: ReadonlyMap<number, string | null>): Appearance {
  const { snippet, highlights } = snippetAround(hit.content, matcher.ranges(hit.content));
  const op = appearanceOp({ ...hit, from_file: fromFiles.get(hit.id) ?? null });
  return { agent_id: hit.agent_id, record_id: hit.record_id, sequence: hit.seq, synced_at: hit.synced_at, origin_file: hit.origin_file, op, snippet, highlights };
}

/** The file each move of `hits` came from (engine.ts `appearanceOp`: a rename stays in its file), read only for the page's moves. */
async function movedFromFiles(db: Queryable, hits: readonly VersionHit[]): Promise<Map<number, string | null>> {
  const ids = hits.filter((h) => h.op === 'move').map((h) => h.id);
  if (ids.length === 0) return new Map();
  const found = await rows<{ id: number; from_file: string | null }>(db, `SELECT v.id, ${MOVED_FROM_FILE} AS from_file FROM record_versions v WHERE v.id = ANY($1::bigint[])`, [ids]);
  return new Map(found.map((r) => [Number(r.id), r.from_file]));
}

// ---- "did you mean" (suggest.ts): the same vocabulary, kept per database in memory ----

interface Vocabulary { lastId: number; rows: number; byAgent: Map<string, Map<string, number>> }
const vocabularies = new WeakMap<object, Vocabulary>();

/**
 * Brought up to date with the versions above the last id read. Other processes commit out of id
 * order (two agents' appends run at once), so a row can appear below that id later: when the
 * searchable rows counted do not add up, the vocabulary is read again from scratch.
 */
async function vocabulary(db: Queryable): Promise<Vocabulary> {
  const { n, top } = (await first<{ n: number; top: number }>(db,
    "SELECT count(*) FILTER (WHERE op <> 'delete') AS n, coalesce(max(id), 0) AS top FROM record_versions"))!;
  let vocab = vocabularies.get(db);
  if (vocab && (vocab.lastId !== top || vocab.rows !== n)) {
    if (top < vocab.lastId || n < vocab.rows || !(await addSince(db, vocab, top)) || vocab.rows !== n) vocab = undefined;
  }
  if (!vocab) {
    vocab = { lastId: 0, rows: 0, byAgent: new Map() };
    await addSince(db, vocab, top);
  }
  vocabularies.set(db, vocab);
  return vocab;
}

/** Adds the searchable versions with lastId < id <= top; false when nothing was there to add. */
async function addSince(db: Queryable, vocab: Vocabulary, top: number): Promise<boolean> {
  const found = await rows<{ agent_id: string; content: string }>(db,
    "SELECT agent_id, content FROM record_versions WHERE op <> 'delete' AND id > $1 AND id <= $2 ORDER BY id", [vocab.lastId, top]);
  for (const row of found) {
    let terms = vocab.byAgent.get(row.agent_id);
    if (!terms) vocab.byAgent.set(row.agent_id, (terms = new Map()));
    addTerms(terms, row.content);
  }
  vocab.lastId = top;
  vocab.rows += found.length;
  return found.length > 0;
}

async function agentsInScope(db: Queryable, scope: Scope): Promise<string[] | null> {
  if (scope.agentId !== undefined) return [scope.agentId.toLowerCase()];
  if (scope.tenantId === undefined) return null;
  const p = new Params();
  return (await rows<{ id: string }>(db, `SELECT id FROM agents a WHERE true ${tenantCondition(p, 'a', scope.tenantId)}`, p)).map((a) => a.id);
}

async function suggestTerms(db: Queryable, parsed: ParsedQuery, scope: Scope): Promise<Suggestion[]> {
  const vocab = await vocabulary(db);
  const agents = await agentsInScope(db, scope);
  const counts = new Map<string, number>();
  for (const [agent, terms] of vocab.byAgent) {
    if (agents && !agents.includes(agent)) continue;
    for (const [term, n] of terms) counts.set(term, (counts.get(term) ?? 0) + n);
  }
  const out: Suggestion[] = [];
  for (const [index, term] of parsed.terms.entries()) {
    if (term.phrase || term.prefix || term.fragment) continue;
    const chars = [...term.words[0]!];
    const near: { term: string; distance: number; count: number }[] = [];
    for (const [candidate, count] of counts) {
      if (candidate === term.words[0]) continue;
      const distance = editDistanceUpTo2(chars, [...candidate]);
      if (distance <= 2) near.push({ term: candidate, distance, count });
    }
    near.sort((a, b) => a.distance - b.distance || b.count - a.count || (a.term < b.term ? -1 : 1));
    for (const n of near.slice(0, 3 * 5)) {
      if (out.length >= 5) return out;
      const query = formatQuery(parsed.terms.map((t, i) => (i === index ? { text: n.term, phrase: false } : t)));
      if (out.some((s) => s.query === query)) continue;
      const replaced: ParsedQuery = { text: query, terms: parsed.terms.map((t, i) => (i === index ? { text: n.term, words: [n.term], forms: [[n.term]], phrase: false, prefix: false, fragment: [...n.term].length <= 2 } : t)) };
      const found = await findAppearances(db, compileMatcher(replaced.terms), replaced, scope);
      if (found.appearances.length > 0) out.push({ term: n.term, replaces: term.text, query });
    }
  }
  return out;
}

export async function searchHistory(db: Queryable, params: { q: string; agentId?: string; tenantId?: TenantScope; limit?: number; offset?: number }): Promise<SearchResult> {
  const parsed = parseSearchQuery(params.q);
  const limit = searchLimit(params.limit);
  const offset = params.offset ?? 0;
  if (!Number.isSafeInteger(offset) || offset < 0) throw new LedgerError('invalid_input', `offset must be a non-negative integer, got ${String(offset)}`);
  const scope: Scope = { ...(params.agentId !== undefined ? { agentId: params.agentId } : {}), ...(params.tenantId !== undefined ? { tenantId: params.tenantId } : {}) };
  const matcher = compileMatcher(parsed.terms);
  const found = await findAppearances(db, matcher, parsed, scope);
  const { head, agents } = firstAppearances(found.appearances, 1 + offset + limit);
  const statuses = agentStatuses(found, agents);
  const firstHit = head[0];
  const { agent_id: _, ...status } = statuses.find((s) => s.agent_id === firstHit?.agent_id) ?? { agent_id: '', ...NEVER_SEEN };
  const later = head.slice(1 + offset);
  const fromFiles = await movedFromFiles(db, firstHit ? [firstHit, ...later] : later);
  return {
    query: parsed.text,
    first: firstHit ? toAppearance(firstHit, matcher, fromFiles) : null,
    appearances: later.map((a) => toAppearance(a, matcher, fromFiles)),
    total: found.appearances.length,
    offset,
    status,
    statuses,
    suggestions: found.appearances.length === 0 ? await suggestTerms(db, parsed, scope) : [],
  };
}
