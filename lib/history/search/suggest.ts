/**
 * "Did you mean": indexed terms within edit distance 2 of a query word, each offered with the
 * query it gives (that word replaced) and only when that query finds something. The terms are
 * the searchable versions' whitespace-separated tokens, trimmed of punctuation at either end, and
 * their letter/digit runs; kept per agent in memory (the word index's vocabulary holds escaped
 * tokens of every agent together), read once and then only the versions added since.
 */
import { sql } from 'drizzle-orm';
import type { LineageDb } from '@/db/client';
import { tenantSql } from '../queries/common';
import type { SearchScope } from './candidates';
import { foldCase } from './fold';
import { countAppearances } from './engine';
import { formatQuery, type ParsedQuery } from './parse-query';

export interface Suggestion {
  /** The indexed term. */
  term: string;
  /** The query word it stands for. */
  replaces: string;
  /** The query with that word replaced: what a suggestion link searches. */
  query: string;
}

const MAX_SUGGESTIONS = 5;
const TOKEN = /[^\s]+/gu;
const EDGE = /^[^\p{L}\p{N}]+|[^\p{L}\p{N}\p{M}]+$/gu;
const RUN = /[\p{L}\p{N}\p{M}]+/gu;

interface Vocabulary { lastId: number; rows: number; byAgent: Map<string, Map<string, number>> }

const vocabularies = new WeakMap<object, Vocabulary>();

/** Adds the terms of `content` to `into` (exported for the scale-out backend's vocabulary, lib/storage/pg/search.ts). */
export function addTerms(into: Map<string, number>, content: string): void {
  const folded = foldCase(content);
  for (const [token] of folded.matchAll(TOKEN)) {
    const trimmed = token.replace(EDGE, '');
    if (trimmed.length === 0) continue;
    into.set(trimmed, (into.get(trimmed) ?? 0) + 1);
    for (const [run] of trimmed.matchAll(RUN)) if (run !== trimmed) into.set(run, (into.get(run) ?? 0) + 1);
  }
}

/** The per-agent term counts, brought up to date with the versions table. */
function vocabulary(db: LineageDb): Vocabulary {
  const { n, top } = db.sqlite.prepare('SELECT count(*) AS n, coalesce(max(id), 0) AS top FROM record_versions').get() as { n: number; top: number };
  let vocab = vocabularies.get(db.sqlite);
  // Rows only ever get added above the last id, unless an agent was removed or the index rebuilt smaller.
  if (!vocab || top < vocab.lastId || n < vocab.rows) vocab = { lastId: 0, rows: 0, byAgent: new Map() };
  if (top > vocab.lastId) {
    const rows = db.sqlite.prepare(`SELECT v.agent_id, v.content FROM record_versions_searchable s CROSS JOIN record_versions v ON v.id = s.id
      WHERE s.id > ?`).iterate(vocab.lastId) as Iterable<{ agent_id: string; content: string }>;
    for (const row of rows) {
      let terms = vocab.byAgent.get(row.agent_id);
      if (!terms) vocab.byAgent.set(row.agent_id, (terms = new Map()));
      addTerms(terms, row.content);
    }
  }
  vocab.lastId = top;
  vocab.rows = n;
  vocabularies.set(db.sqlite, vocab);
  return vocab;
}

/** Levenshtein distance, or 3 as soon as it must exceed 2. */
export function editDistanceUpTo2(a: readonly string[], b: readonly string[]): number {
  if (Math.abs(a.length - b.length) > 2) return 3;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      const value = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + cost);
      row.push(value);
      best = Math.min(best, value);
    }
    if (best > 2) return 3;
    prev = row;
  }
  return prev[b.length]!;
}

function agentsInScope(db: LineageDb, scope: SearchScope): string[] | null {
  if (scope.agentId !== undefined) return [scope.agentId.toLowerCase()];
  if (scope.tenantId === undefined) return null;
  return db.db.all<{ id: string }>(sql`SELECT id FROM agents a WHERE 1 ${tenantSql('a', scope.tenantId)}`).map((a) => a.id);
}

export function suggestTerms(db: LineageDb, parsed: ParsedQuery, scope: SearchScope): Suggestion[] {
  const vocab = vocabulary(db);
  const agents = agentsInScope(db, scope);
  const counts = new Map<string, number>();
  for (const [agent, terms] of vocab.byAgent) {
    if (agents && !agents.includes(agent)) continue;
    for (const [term, n] of terms) counts.set(term, (counts.get(term) ?? 0) + n);
  }
  const out: Suggestion[] = [];
  parsed.terms.forEach((term, index) => {
    if (term.phrase || term.prefix || term.fragment) return;
    const word = term.words[0]!;
    const chars = [...word];
    const near: { term: string; distance: number; count: number }[] = [];
    for (const [candidate, count] of counts) {
      if (candidate === word) continue;
      const distance = editDistanceUpTo2(chars, [...candidate]);
      if (distance <= 2) near.push({ term: candidate, distance, count });
    }
    near.sort((a, b) => a.distance - b.distance || b.count - a.count || (a.term < b.term ? -1 : 1));
    for (const n of near.slice(0, 3 * MAX_SUGGESTIONS)) {
      if (out.length >= MAX_SUGGESTIONS) return;
      const terms = parsed.terms.map((t, i) => (i === index ? { text: n.term, phrase: false } : t));
      const query = formatQuery(terms);
      if (out.some((s) => s.query === query)) continue;
      const replaced = { text: query, terms: parsed.terms.map((t, i) => (i === index ? { text: n.term, words: [n.term], forms: [[n.term]], phrase: false, prefix: false, fragment: [...n.term].length <= 2 } : t)) };
      if (countAppearances(db, replaced, scope) > 0) out.push({ term: n.term, replaces: term.text, query });
    }
  });
  return out;
}
