/**
 * One visit of one page in Chromium: a fresh browser context (cold HTTP cache, as a first visit),
 * the largest contentful paint from a PerformanceObserver installed before any page script, the DOM
 * size once the page has settled (loaded, no request in flight for SETTLE_MS, no loading
 * placeholder left), and the server time of every data request the visit made, read from the
 * server's timing log (lib/server/request-timing.ts): the document, its RSC fetches and /api/*.
 * Static assets (/_next/static, /favicon) are not data requests.
 */
import type { Browser } from '@playwright/test';
import { readRequestTimings, type RequestTiming } from '@/lib/server/request-timing';
import fs from 'node:fs';

const SETTLE_MS = 500;

export interface Visit {
  ok: boolean;
  error?: string;
  lcpMs: number | null;
  domElements: number | null;
  /** Browser: navigation start → load event. */
  loadMs: number | null;
  requests: { label: string; url: string; status: number; ms: number }[];
}

/** `/api/agents/<uuid>/records?x` → `/api/agents/:id/records`: one label per kind of request. */
export function requestLabel(url: string, pageUrl: string): string {
  const [pathPart, query = ''] = url.split('?');
  const [pagePath] = pageUrl.split('?');
  const generic = pathPart!.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, ':id').replace(/\/sequences\/\d+/, '/sequences/:seq');
  if (pathPart === pagePath && !url.startsWith('/api/')) return query.includes('_rsc=') ? 'page (RSC)' : 'page (document)';
  // Next.js prefetches the pages the visit's links lead to (the header's, a row's): RSC requests.
  return query.includes('_rsc=') ? `${generic} (RSC prefetch)` : generic;
}

const isData = (t: RequestTiming) => !t.url.startsWith('/_next/static/') && !t.url.startsWith('/favicon') && !t.url.startsWith('/__nextjs');

export async function visitPage(args: { browser: Browser; baseUrl: string; url: string; timingLog: string; timeoutMs: number }): Promise<Visit> {
  const context = await args.browser.newContext({ viewport: { width: 1440, height: 900 } });
  const page = await context.newPage();
  await page.addInitScript(() => {
    const w = window as unknown as { __lcp: number | null };
    w.__lcp = null;
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) w.__lcp = entry.startTime;
    }).observe({ type: 'largest-contentful-paint', buffered: true });
  });
  const offset = fs.existsSync(args.timingLog) ? fs.statSync(args.timingLog).size : 0;
  const visit: Visit = { ok: true, lcpMs: null, domElements: null, loadMs: null, requests: [] };
  try {
    await page.goto(`${args.baseUrl}${args.url}`, { waitUntil: 'load', timeout: args.timeoutMs });
    await page.waitForLoadState('networkidle', { timeout: args.timeoutMs });
    await page.waitForFunction(() => document.querySelectorAll('[data-testid=loading]').length === 0, undefined, { timeout: args.timeoutMs });
    await page.waitForTimeout(SETTLE_MS);
    const measured = await page.evaluate(() => {
      const nav = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming | undefined;
      return {
        lcp: (window as unknown as { __lcp: number | null }).__lcp,
        dom: document.getElementsByTagName('*').length,
        load: nav ? nav.loadEventEnd - nav.startTime : null,
      };
    });
    visit.lcpMs = measured.lcp;
    visit.domElements = measured.dom;
    visit.loadMs = measured.load;
  } catch (error) {
    visit.ok = false;
    visit.error = (error as Error).message.split('\n')[0];
    // What the page had drawn when time ran out (it may still have been growing).
    visit.domElements = await Promise.race([
      page.evaluate(() => document.getElementsByTagName('*').length).catch(() => null),
      new Promise<null>((r) => setTimeout(() => r(null), 20_000)),
    ]);
  } finally {
    await context.close();
  }
  // A response's line is written when it finishes: wait until the server has finished what the
  // visit asked for (a timed-out page may leave requests running), so the next visit starts clean.
  await logQuiet(args.timingLog, 400, 120_000);
  visit.requests = readRequestTimings(args.timingLog, offset).filter(isData).map((t) => ({
    // A request the browser gave up on (the visit timed out): its time is a lower bound.
    label: `${requestLabel(t.url, args.url)}${t.aborted ? ' (unfinished)' : ''}`, url: t.url, status: t.status, ms: t.ms,
  }));
  return visit;
}

async function logQuiet(file: string, quietMs: number, maxMs: number): Promise<void> {
  const deadline = Date.now() + maxMs;
  let size = -1;
  let since = Date.now();
  while (Date.now() < deadline) {
    const now = fs.existsSync(file) ? fs.statSync(file).size : 0;
    if (now !== size) {
      size = now;
      since = Date.now();
    } else if (Date.now() - since >= quietMs) return;
    await new Promise((r) => setTimeout(r, 100));
  }
}
