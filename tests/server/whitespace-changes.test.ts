/**
 * Updates whose texts differ only in whitespace at the ends of lines (lib/history/testing/
 * whitespace-history.ts, a real OpenClaw sync history) in the changes feed and in compare's counts,
 * ingested into both backends — the embedded one (SQLite + fs) and the scale-out one (the run's real
 * PostgreSQL 15 + radosgw) — whose answers must be equal; then as the dashboard draws them
 * (server-side render of the real components): the feed from GET /api/changes' answer, the compare
 * page from the comparison.
 *
 * The feed's word diff of such an update shows nothing a reader sees (a line break, spaces at a
 * line's end); its row says the change in the words compare, the lineage and the sequence pages use
 * (lib/ui/whitespace-words.ts). Compare still counts it as an update (its stored text changed) and
 * says how many of the updates are whitespace only.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createElement, type ReactElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { AppRouterContext } from 'next/dist/shared/lib/app-router-context.shared-runtime';
import { ChangesFeed } from '@/components/changes/ChangesFeed';
import { CompareView } from '@/components/compare/CompareView';
import { openPgDatabase, type PgLineageDb } from '@/db/pg/client';
import type { ChangeGroup, ChangeItem } from '@/lib/history/queries';
import { whitespaceHistory } from '@/lib/history/testing/whitespace-history';
import { openLedger, type Ledger } from '@/lib/ledger/ledger';
import { S3BlobStore } from '@/lib/ledger/s3-blob-store';
import { guardHeaders } from '@/lib/server/scope-header';
import { embeddedStorage } from '@/lib/storage/embedded';
import { scaleOutStorage } from '@/lib/storage/scale-out';
import { uploadsOf } from '@/lib/storage/testing/synced-histories';
import type { LineageStorage } from '@/lib/storage/types';
import { freshBucket, freshDatabase, testS3Client, usePostgres, useRadosgw } from '@/tests/engines/use-engines';

let agentId = '';
let dir = '';
let ledger: Ledger;
let pgDb: PgLineageDb;
const storages = {} as { embedded: LineageStorage; scaleOut: LineageStorage };

/** Asks both backends; their answers must be equal; returns the embedded one's. */
async function same<T>(ask: (s: LineageStorage) => Promise<T>): Promise<T> {
  const embedded = await ask(storages.embedded);
  expect(await ask(storages.scaleOut)).toEqual(embedded);
  return embedded;
}

beforeAll(async () => {
  const history = await whitespaceHistory('lineage-whitespace-changes-');
  let taken;
  try {
    taken = await uploadsOf(history.dataDir, history.agentId);
  } finally {
    await history.cleanup();
  }
  agentId = taken.agentId;
  await Promise.all([usePostgres(), useRadosgw()]);
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lineage-whitespace-changes-'));
  ledger = openLedger(dir);
  const [url, { bucket, settings }] = await Promise.all([freshDatabase(), freshBucket()]);
  pgDb = await openPgDatabase(url);
  const client = testS3Client(settings);
  const location = { bucket, prefix: 'lineage' };
  storages.embedded = embeddedStorage(ledger);
  storages.scaleOut = scaleOutStorage({ db: pgDb, blobs: new S3BlobStore(client, location), client, location });
  const now = new Date(taken.uploads[0]!.now.getTime() - 60_000);
  await same((s) => s.registerAgent({ id: agentId, name: 'whitespace', sourceRuntime: 'openclaw', tenantId: null, now }));
  for (const u of taken.uploads) {
    await same((s) => (u.kind === 'snapshot'
      ? s.ingestSnapshot({ agentId, bytes: u.bytes, now: u.now, tenantId: null })
      : s.ingestDelta({ agentId, baseSequence: u.baseSequence, bytes: u.bytes, now: u.now, tenantId: null })));
  }
  process.env.LINEAGE_DATA = dir;
}, 120_000);

afterAll(async () => {
  await storages.embedded?.close();
  await storages.scaleOut?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

const noop = () => undefined;
const render = (element: ReactElement) => renderToStaticMarkup(createElement(QueryClientProvider, { client: new QueryClient() }, createElement(AppRouterContext.Provider, {
  value: { back: noop, forward: noop, refresh: noop, push: noop, replace: noop, prefetch: noop, hmrRefresh: noop } as never,
}, element)));
/** The page's words, markup gone. */
const text = (html: string) => html.replace(/<[^>]*>/g, ' ').replace(/\s+/g, ' ');

/** Each update of the feed as (sequence, heading, whitespace words or null, whether it has a diff). */
const updates = (groups: ChangeGroup[]) => groups.flatMap((g) => g.changes).filter((c) => c.op === 'update')
  .map((c) => [c.seq, c.heading, c.whitespace_change ?? null, (c.diff?.length ?? 0) > 0]).sort();

describe('the changes feed: an update of whitespace only is said in words', () => {
  it('both backends give each update of whitespace only its words, and none to an edit', async () => {
    const feed = await same((s) => s.getChanges({ since: new Date(0), agentId }));
    expect(updates(feed.groups)).toEqual([
      [1, 'Gateway', null, true],
      // #2 against #1 is an edit (10.20.0.5 → 10.20.0.9): the whitespace-only change is #0 → #2, compare's.
      [2, 'Gateway', null, true],
      [3, 'Coffee', null, true],
      [3, 'Keep', 'Only whitespace changed: spaces at the end of line 2 changed.', true],
    ]);
    // Per op and page by page the same.
    expect(updates((await same((s) => s.getChanges({ since: new Date(0), agentId, op: 'update', limit: 1 }))).groups)).toHaveLength(1);
  });

  it('GET /api/changes carries it, and the feed drawn from that answer says it in place of an empty diff', async () => {
    const { GET } = await import('@/app/api/changes/route');
    const res = await GET(new Request(`http://localhost/api/changes?since=${encodeURIComponent(new Date(0).toISOString())}&agent=${agentId}&op=update`, { headers: guardHeaders(undefined) }), undefined);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { groups: ChangeGroup[] };
    const changes = body.groups.flatMap((g) => g.changes);
    const row = (c: ChangeItem) => render(createElement(ChangesFeed, { groups: [{ ...body.groups[0]!, changes: [c] }], showAgent: false }));
    const keep = changes.find((c) => c.heading === 'Keep' && c.seq === 3)!;
    // What the row drew before: its diff, whose changed segments are spaces alone — nothing to see.
    expect(keep.diff!.filter((s) => s.op !== 'equal').every((s) => s.text.trim() === '')).toBe(true);
    const html = row(keep);
    expect(html).toContain('data-testid="change-whitespace"');
    expect(text(html)).toContain('Only whitespace changed: spaces at the end of line 2 changed.');
    expect(html).not.toContain('data-testid="change-diff"');
    // An edit of the same sync is still drawn as its word diff.
    const edit = row(changes.find((c) => c.heading === 'Coffee' && c.seq === 3)!);
    expect(edit).toContain('data-testid="change-diff"');
    expect(edit).not.toContain('change-whitespace');
    expect(text(edit)).toContain('noir');
  });
});

describe('compare: updates of whitespace only are counted as updates, and said how many', () => {
  /** The Updated heading of the compare page, in words. */
  const heading = async (from: number, to: number, limit?: number) => {
    const comparison = (await same((s) => s.compareWorkspace({ agentId, from, to, ...(limit ? { limit } : {}) })))!;
    const html = render(createElement(CompareView, { agentId, latest: 3, comparison, changedFiles: [] }));
    const updated = html.match(/<section data-testid="compare-updated"[^>]*>\s*<h3[^>]*>(.*?)<\/h3>/)?.[1] ?? '';
    // Markup gone, each element's words apart (the note is set off by a margin, not a space).
    // What a screen reader reads: the markup alone gone, so the words must be spaced in the text itself.
    const spoken = updated.replace(/<[^>]*>/g, '').replace(/<!-- -->/g, '');
    return { counts: comparison.counts, spoken, heading: text(updated).replace(/\( /g, '(').replace(/ ([),])/g, '$1').trim() };
  };

  it('every pair of sequences answers the same on both backends', async () => {
    for (let from = 0; from <= 3; from++) for (let to = from; to <= 3; to++) await same((s) => s.compareWorkspace({ agentId, from, to }));
  });

  it('#2 → #3: Coffee edited, Keep whitespace only — 2 updated, 1 of them whitespace only', async () => {
    const { counts, heading: h, spoken } = await heading(2, 3);
    expect(spoken).toBe('Updated 2 (1 whitespace only)');
    expect(counts.updated).toBe(2);
    expect(h).toBe('Updated 2 (1 whitespace only)');
  });

  it('#0 → #3: Gateway and Keep, both whitespace only; #0 → #1: an edit alone, no note', async () => {
    expect((await heading(0, 3)).heading).toBe('Updated 2 (2 whitespace only)');
    expect((await heading(0, 1)).heading).toBe('Updated 1');
  });

  it('a list cut at the limit says how many of those shown are whitespace only', async () => {
    // #0 → #3 in place order: Gateway (whitespace only) shown, Keep not.
    expect((await heading(0, 3, 1)).heading).toBe('Updated 2 (the first 1 shown, 1 of them whitespace only)');
    // #2 → #3: Coffee (an edit) shown, Keep not: nothing to say of those shown.
    expect((await heading(2, 3, 1)).heading).toBe('Updated 2 (the first 1 shown)');
  });
});
