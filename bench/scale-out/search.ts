/**
 * Search on PostgreSQL vs SQLite for the bench history: the same queries through the same seam verb
 * (`storage.search`, what GET /api/search calls), on the embedded data directory and on its copy in
 * PostgreSQL + S3. Single-token facts: every planted fact, its first appearance checked against the
 * generator's ground truth on both; per-fact median of `reps`, p50 over the facts. Then the two-word
 * and phrase queries of bench/measure/search-queries.ts.
 */
import type { LineageStorage } from '@/lib/storage/types';
import { median, percentile, round } from '../lib/stats';
import type { BenchHistory } from './history';

export interface SearchSide { p50_ms: number; p95_ms: number; per_query_ms: Record<string, number> }
export interface SearchRow { name: string; queries: number; sqlite: SearchSide; postgres: SearchSide; answers_equal: boolean }

async function timeQuery(storage: LineageStorage, q: string, reps: number): Promise<{ ms: number; answer: string }> {
  const answer = JSON.stringify(await storage.search({ q })); // warm-up: plans, caches; the answer compared
  const times: number[] = [];
  for (let i = 0; i < reps; i++) {
    const t0 = performance.now();
    await storage.search({ q });
    times.push(performance.now() - t0);
  }
  return { ms: median(times), answer };
}

async function side(storage: LineageStorage, queries: string[], reps: number): Promise<{ side: SearchSide; answers: string[] }> {
  const per: Record<string, number> = {};
  const answers: string[] = [];
  for (const q of queries) {
    const { ms, answer } = await timeQuery(storage, q, reps);
    per[q] = round(ms);
    answers.push(answer);
  }
  const all = Object.values(per);
  return { side: { p50_ms: round(median(all)), p95_ms: round(percentile(all, 95)), per_query_ms: per }, answers };
}

async function compareSides(name: string, queries: string[], stores: { sqlite: LineageStorage; postgres: LineageStorage }, reps: number, log: (l: string) => void): Promise<SearchRow> {
  const sqlite = await side(stores.sqlite, queries, reps);
  const postgres = await side(stores.postgres, queries, reps);
  const equal = sqlite.answers.every((a, i) => a === postgres.answers[i]);
  log(`  search ${name}: SQLite p50 ${sqlite.side.p50_ms} ms, PostgreSQL p50 ${postgres.side.p50_ms} ms over ${queries.length} queries; answers ${equal ? 'equal' : 'DIFFER'}`);
  return { name, queries: queries.length, sqlite: sqlite.side, postgres: postgres.side, answers_equal: equal };
}

export async function measureSearch(params: {
  history: BenchHistory; sqlite: LineageStorage; postgres: LineageStorage; reps: number; log: (l: string) => void;
}): Promise<{ rows: SearchRow[]; mismatches: string[] }> {
  const { history, log } = params;
  const stores = { sqlite: params.sqlite, postgres: params.postgres };
  const mismatches: string[] = [];
  for (const [label, storage] of Object.entries(stores)) {
    for (const fact of history.facts) {
      const first = (await storage.search({ q: fact.fact })).first;
      if (first?.sequence !== fact.turn || first.origin_file !== fact.file) {
        mismatches.push(`${label} for ${fact.fact}: #${first?.sequence} ${first?.origin_file}, expected #${fact.turn} ${fact.file}`);
      }
    }
  }
  const facts = history.facts.slice(0, 6);
  const twoWords = [...facts.map((f) => `${f.ip} ${f.fact}`), 'redis restarted', 'kafka consumer', 'canary first', 'Dana patched', 'backups twice', 'nginx runbook'];
  const phrases = [...facts.map((f) => `"Incident ${f.fact}"`), '"rolled back"', '"the kafka consumer"', '"per the runbook"', '"with a canary first"', '"traced to host"', '"Sam reviewed"'];
  const rows = [
    await compareSides('single-token facts', history.facts.map((f) => f.fact), stores, params.reps, log),
    await compareSides('two words', twoWords, stores, Math.max(3, Math.floor(params.reps / 5)), log),
    await compareSides('phrases', phrases, stores, Math.max(3, Math.floor(params.reps / 5)), log),
  ];
  return { rows, mismatches };
}
