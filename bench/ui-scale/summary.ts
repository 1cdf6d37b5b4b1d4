/** Per-page figures of the ui-scale bench against the goals, and their markdown table. */
import { median, percentile, round } from '../lib/stats';
import type { Visit } from './measure-page';

export const GOALS = { serverP95Ms: 100, lcpMs: 1500, domElements: 5000 } as const;

export interface RequestKind {
  label: string; perVisit: number; p50: number; p95: number; max: number;
  /**
   * A request made once a visit (a page's document): its times in visit order. Whether a p95 is set by
   * the first visits (code the server is still compiling) or by scattered ones (a collection, the
   * machine) is in their order, not in the percentiles.
   */
  values?: number[];
}
export interface PageResult {
  name: string;
  url: string;
  visits: number;
  failed: number;
  error?: string;
  lcp: { p50: number | null; p95: number | null; values: (number | null)[] };
  domElements: { max: number | null; values: (number | null)[] };
  loadMs: { p50: number | null };
  requests: RequestKind[];
  /** The worst request kind's p95 (the goal holds for each data request). */
  serverP95: { ms: number | null; label: string | null };
  meets: { server: boolean; lcp: boolean; dom: boolean };
}

const nums = (values: (number | null)[]) => values.filter((v): v is number => v !== null);

export function summarise(name: string, url: string, visits: Visit[]): PageResult {
  const ok = visits.filter((v) => v.ok);
  const lcps = visits.map((v) => (v.ok ? v.lcpMs : null));
  // A visit that did not settle still says how many elements it had drawn by then (a lower bound).
  const doms = visits.map((v) => v.domElements);
  const byLabel = new Map<string, number[]>();
  for (const visit of visits) for (const r of visit.requests) byLabel.set(r.label, [...(byLabel.get(r.label) ?? []), r.ms]);
  const requests: RequestKind[] = [...byLabel].map(([label, ms]) => ({
    label, perVisit: round(ms.length / visits.length), p50: round(median(ms)), p95: round(percentile(ms, 95)), max: round(Math.max(...ms)),
    ...(ms.length <= visits.length ? { values: ms.map((m) => round(m)) } : {}),
  })).sort((a, b) => b.p95 - a.p95);
  const worst = requests[0] ?? null;
  const lcpOk = nums(lcps);
  const domOk = nums(doms);
  const lcpP95 = lcpOk.length > 0 ? round(percentile(lcpOk, 95)) : null;
  const domMax = domOk.length > 0 ? Math.max(...domOk) : null;
  const complete = ok.length === visits.length;
  return {
    name, url, visits: visits.length, failed: visits.length - ok.length, error: visits.find((v) => !v.ok)?.error,
    lcp: { p50: lcpOk.length > 0 ? round(median(lcpOk)) : null, p95: lcpP95, values: lcps.map((v) => (v === null ? null : round(v))) },
    domElements: { max: domMax, values: doms },
    loadMs: { p50: nums(visits.map((v) => v.loadMs)).length > 0 ? round(median(nums(visits.map((v) => v.loadMs)))) : null },
    requests,
    serverP95: { ms: worst?.p95 ?? null, label: worst?.label ?? null },
    meets: {
      server: complete && worst !== null && worst.p95 < GOALS.serverP95Ms,
      lcp: complete && lcpP95 !== null && lcpP95 < GOALS.lcpMs,
      dom: complete && domMax !== null && domMax <= GOALS.domElements,
    },
  };
}

const mark = (ok: boolean) => (ok ? '✅' : '❌');
const fmt = (n: number | null) => (n === null ? '—' : String(n));

export function markdownTable(pages: PageResult[]): string {
  const head = `| page | data requests per visit | server p95, worst request (ms) | LCP p50 / p95 (ms) | DOM elements (max) | p95 < ${GOALS.serverP95Ms} ms | LCP < ${GOALS.lcpMs} ms | ≤ ${GOALS.domElements} elements |`;
  const rows = pages.map((p) => {
    const perVisit = round(p.requests.reduce((n, r) => n + r.perVisit, 0));
    const failed = p.failed > 0 ? ` (${p.failed}/${p.visits} visits failed: ${p.error ?? ''})` : '';
    const worst = p.serverP95.ms === null ? '—' : `${p.serverP95.ms} (${p.serverP95.label})`;
    const dom = p.failed > 0 && p.domElements.max !== null ? `≥ ${p.domElements.max} (not settled)` : fmt(p.domElements.max);
    return `| ${p.name}${failed} | ${perVisit} | ${worst} | ${fmt(p.lcp.p50)} / ${fmt(p.lcp.p95)} | ${dom} | ${mark(p.meets.server)} | ${mark(p.meets.lcp)} | ${mark(p.meets.dom)} |`;
  });
  return [head, '|---|---:|---|---:|---:|:-:|:-:|:-:|', ...rows].join('\n');
}
