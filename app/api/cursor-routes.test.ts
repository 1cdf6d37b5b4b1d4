/**
 * The cursor-paged routes called as Next would call them, over a data directory seeded through the
 * real sync pipeline (e2e/seed): walking every page gives the whole list once, in order, and a cursor
 * the list did not give out (garbage, another shape, another sort, another agent, filter, op kind or
 * order) is a 400 in words, never a 500.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { LARGE, seed, type SeedManifest } from '@/e2e/seed/seed';
import { guardHeaders } from '@/lib/server/scope-header';

let manifest: SeedManifest;
const params = <P>(p: P) => ({ params: Promise.resolve(p) });
const req = (url: string) => new Request(`http://localhost${url}`, { headers: guardHeaders(undefined) });

beforeAll(async () => {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'lineage-cursor-routes-'));
  process.env.LINEAGE_DATA = path.join(base, 'data');
  manifest = await seed(process.env.LINEAGE_DATA, path.join(base, 'scratch'));
});

type Page<T> = { next_cursor: string | null } & T;

async function walk<T>(get: (cursor: string | null) => Promise<Response> | Response, items: (page: Page<T>) => unknown[]): Promise<unknown[]> {
  const out: unknown[] = [];
  let cursor: string | null = null;
  do {
    const res = await get(cursor);
    expect(res.status).toBe(200);
    const page = (await res.json()) as Page<T>;
    out.push(...items(page));
    cursor = page.next_cursor;
  } while (cursor);
  return out;
}

const BAD = ['not-a-cursor', Buffer.from('["x",1]').toString('base64url'), Buffer.from('{"seq":1}').toString('base64url'), '%E2%80%AE'];

describe('cursor-paged routes', () => {
  it('GET /api/changes: the pages walked are the whole feed; a bad cursor is a 400 in words', async () => {
    const { GET } = await import('./changes/route');
    type Feed = { groups: { changes: { seq: number; record_id: string; op: string }[] }[] };
    const keys = (p: Feed) => p.groups.flatMap((g) => g.changes.map((c) => `${c.seq}:${c.op}:${c.record_id}`));
    const since = new Date(Date.parse(manifest.large.syncedAt) - 86_400_000).toISOString().slice(0, 10);
    const whole = keys((await (await GET(req(`/api/changes?since=${since}&limit=1000&agent=${manifest.large.agentId}`), undefined)).json()) as Feed);
    expect(whole).toHaveLength(1000); // the largest page
    const walked = await walk<Feed>((c) => GET(req(`/api/changes?since=${since}&limit=64&agent=${manifest.large.agentId}${c ? `&cursor=${c}` : ''}`), undefined), keys);
    expect(walked).toHaveLength(LARGE.records);
    expect(new Set(walked).size).toBe(LARGE.records);
    expect(walked.slice(0, 1000)).toEqual(whole);
    for (const cursor of BAD) {
      const res = await GET(req(`/api/changes?cursor=${cursor}`), undefined);
      expect(res.status).toBe(400);
      expect(((await res.json()) as { error: string }).error).toMatch(/paging cursor .* is not one this list gave out; start again from the first page\./);
    }
    expect((await GET(req('/api/changes?limit=0'), undefined)).status).toBe(400);
    expect((await GET(req('/api/changes?limit=1001'), undefined)).status).toBe(400);
  });

  it('GET /api/agents/:id/records: each sort walked, a cursor of another sort and a bad one are 400s', async () => {
    const { GET } = await import('./agents/[id]/records/route');
    const id = manifest.large.agentId;
    type Records = { items: { record_id: string }[] };
    for (const sort of ['file', 'heading', 'changed']) {
      const whole = ((await (await GET(req(`/api/x?sort=${sort}&limit=1000`), params({ id }))).json()) as Records).items.map((r) => r.record_id);
      const walked = await walk<Records>((c) => GET(req(`/api/x?sort=${sort}&limit=100${c ? `&cursor=${c}` : ''}`), params({ id })), (p) => p.items.map((r) => r.record_id));
      expect(walked).toHaveLength(LARGE.records);
      expect(walked.slice(0, 1000)).toEqual(whole);
    }
    const byFile = ((await (await GET(req('/api/x?limit=5'), params({ id }))).json()) as { next_cursor: string }).next_cursor;
    const other = await GET(req(`/api/x?sort=heading&cursor=${byFile}`), params({ id }));
    expect(other.status).toBe(400);
    expect(((await other.json()) as { error: string }).error).toBe('The paging cursor belongs to the list sorted by file, not by heading; start again from the first page.');
    for (const cursor of BAD) expect((await GET(req(`/api/x?cursor=${cursor}`), params({ id }))).status).toBe(400);
    expect((await GET(req('/api/x?sort=size'), params({ id }))).status).toBe(400);
    const found = (await (await GET(req('/api/x?q=glossary%20entry%20number%2042.'), params({ id }))).json()) as Records & { total: number };
    expect(found.total).toBe(1);
  });

  it('GET /api/agents/:id/sequences/:seq/ops pages one op kind; bad cursors and ops are 400s, a sequence past the latest a 404', async () => {
    const { GET: detail } = await import('./agents/[id]/sequences/[seq]/route');
    const { GET } = await import('./agents/[id]/sequences/[seq]/ops/route');
    const id = manifest.large.agentId;
    type Detail = { op_counts: { create: number }; ops: { record_id: string }[]; op_cursors: { create: string | null } };
    const first = (await (await detail(req('/api/x?limit=300'), params({ id, seq: '0' }))).json()) as Detail;
    expect(first.op_counts.create).toBe(LARGE.records);
    expect(first.ops).toHaveLength(300);
    const walked: string[] = first.ops.map((o) => o.record_id);
    let cursor = first.op_cursors.create;
    while (cursor) {
      const page = (await (await GET(req(`/api/x?op=create&limit=250&cursor=${cursor}`), params({ id, seq: '0' }))).json()) as { items: { record_id: string }[]; next_cursor: string | null };
      walked.push(...page.items.map((o) => o.record_id));
      cursor = page.next_cursor;
    }
    expect(walked).toHaveLength(LARGE.records);
    expect(new Set(walked).size).toBe(LARGE.records);
    for (const bad of BAD) expect((await GET(req(`/api/x?op=create&cursor=${bad}`), params({ id, seq: '0' }))).status).toBe(400);
    expect((await GET(req('/api/x?op=rename'), params({ id, seq: '0' }))).status).toBe(400);
    expect((await GET(req('/api/x'), params({ id, seq: '0' }))).status).toBe(400);
    expect((await GET(req('/api/x?op=create'), params({ id, seq: '9' }))).status).toBe(404);
  });

  it('GET /api/agents/:id/records/:recordId pages versions; a bad cursor or order is a 400', async () => {
    const { GET: records } = await import('./agents/[id]/records/route');
    const { GET } = await import('./agents/[id]/records/[recordId]/route');
    const id = manifest.agentId;
    const ids = ((await (await records(req('/api/x?limit=1000'), params({ id }))).json()) as { items: { record_id: string }[] }).items.map((r) => r.record_id);
    for (const recordId of ids) {
      const whole = await walk<{ versions: { seq: number }[] }>((c) => GET(req(`/api/x${c ? `?cursor=${c}` : ''}`), params({ id, recordId })), (p) => p.versions.map((v) => v.seq));
      whole.reverse();
      const walked = await walk<{ versions: { seq: number }[] }>((c) => GET(req(`/api/x?limit=1&order=oldest${c ? `&cursor=${c}` : ''}`), params({ id, recordId })), (p) => p.versions.map((v) => v.seq));
      expect(walked).toEqual(whole);
    }
    const recordId = ids[0]!;
    for (const bad of BAD) expect((await GET(req(`/api/x?limit=2&cursor=${bad}`), params({ id, recordId }))).status).toBe(400);
    expect((await GET(req('/api/x?order=sideways'), params({ id, recordId }))).status).toBe(400);
    // No "every version" form: unknown parameters and oversized pages are refused.
    for (const bad of ['?all', '?all=1', '?limit=501', '?limit=0']) expect((await GET(req(`/api/x${bad}`), params({ id, recordId }))).status).toBe(400);
  });

  it('a cursor pages only the list it came from: another agent, filter, op kind or order is a 400 in words', async () => {
    const ANOTHER = /^This paging cursor belongs to another search or list \(another agent, sequence, filter or order\); start again from the first page\.$/;
    const refused = async (res: Response | Promise<Response>) => {
      const answer = await res;
      expect(answer.status).toBe(400);
      expect(((await answer.json()) as { error: string }).error).toMatch(ANOTHER);
    };
    const large = manifest.large.agentId;
    const small = manifest.agentId;
    const since = new Date(Date.parse(manifest.large.syncedAt) - 86_400_000).toISOString().slice(0, 10);
    const cursorOf = async (res: Response | Promise<Response>) => ((await (await res).json()) as { next_cursor: string | null }).next_cursor!;

    const changes = (await import('./changes/route')).GET;
    const feed = await cursorOf(changes(req(`/api/changes?since=${since}&limit=5&agent=${large}`), undefined));
    expect((await changes(req(`/api/changes?since=${since}&limit=5&agent=${large}&cursor=${feed}`), undefined)).status).toBe(200);
    await refused(changes(req(`/api/changes?since=${since}&limit=5&agent=${small}&cursor=${feed}`), undefined));
    await refused(changes(req(`/api/changes?since=${since}&limit=5&cursor=${feed}`), undefined));
    await refused(changes(req(`/api/changes?since=${since}&limit=5&agent=${large}&op=update&cursor=${feed}`), undefined));
    // …or another `since` (it paged that feed's tail); a window that moves with the clock keeps the time its first page read.
    const dayBefore = new Date(Date.parse(since) - 86_400_000).toISOString().slice(0, 10);
    await refused(changes(req(`/api/changes?since=${dayBefore}&limit=5&agent=${large}&cursor=${feed}`), undefined));
    await refused(changes(req(`/api/changes?since=this-week&limit=5&agent=${large}&cursor=${feed}`), undefined));
    const week = (await (await changes(req(`/api/changes?since=365d&limit=5&agent=${large}`), undefined)).json()) as { since: string; next_cursor: string };
    const weekNext = await changes(req(`/api/changes?since=365d&limit=5&agent=${large}&cursor=${week.next_cursor}`), undefined);
    expect(weekNext.status).toBe(200);
    expect(((await weekNext.json()) as { since: string }).since).toBe(week.since);
    await refused(changes(req(`/api/changes?since=366d&limit=5&agent=${large}&cursor=${week.next_cursor}`), undefined));

    const records = (await import('./agents/[id]/records/route')).GET;
    const page = await cursorOf(records(req('/api/x?limit=5'), params({ id: large })));
    expect((await records(req(`/api/x?limit=5&cursor=${page}`), params({ id: large }))).status).toBe(200);
    await refused(records(req(`/api/x?limit=5&cursor=${page}`), params({ id: small })));
    await refused(records(req(`/api/x?limit=5&q=glossary&cursor=${page}`), params({ id: large })));
    // A first page without `at` answered at the latest: `at` = that sequence is the same list, another `at` is not.
    const smallFirst = (await (await records(req('/api/x?limit=2'), params({ id: small }))).json()) as { at: number; next_cursor: string };
    expect(smallFirst.at).toBeGreaterThan(0);
    const next = await records(req(`/api/x?limit=2&cursor=${smallFirst.next_cursor}`), params({ id: small }));
    const nextAt = await records(req(`/api/x?limit=2&at=${smallFirst.at}&cursor=${smallFirst.next_cursor}`), params({ id: small }));
    expect(nextAt.status).toBe(200);
    expect(await nextAt.json()).toEqual(await next.json());
    await refused(records(req(`/api/x?limit=2&at=${smallFirst.at - 1}&cursor=${smallFirst.next_cursor}`), params({ id: small })));

    const ops = (await import('./agents/[id]/sequences/[seq]/ops/route')).GET;
    const created = await cursorOf(ops(req('/api/x?op=create&limit=5'), params({ id: large, seq: '0' })));
    expect((await ops(req(`/api/x?op=create&limit=5&cursor=${created}`), params({ id: large, seq: '0' }))).status).toBe(200);
    await refused(ops(req(`/api/x?op=update&limit=5&cursor=${created}`), params({ id: large, seq: '0' })));

    const lineage = (await import('./agents/[id]/records/[recordId]/route')).GET;
    const ids = ((await (await records(req('/api/x?limit=1000'), params({ id: small }))).json()) as { items: { record_id: string }[] }).items.map((r) => r.record_id);
    let versions: { recordId: string; cursor: string } | undefined;
    for (const recordId of ids) {
      const cursor = ((await (await lineage(req('/api/x?limit=1'), params({ id: small, recordId }))).json()) as { next_cursor: string | null }).next_cursor;
      if (cursor) versions = { recordId, cursor };
    }
    expect(versions).toBeDefined();
    expect((await lineage(req(`/api/x?limit=1&cursor=${versions!.cursor}`), params({ id: small, recordId: versions!.recordId }))).status).toBe(200);
    await refused(lineage(req(`/api/x?limit=1&order=oldest&cursor=${versions!.cursor}`), params({ id: small, recordId: versions!.recordId })));
  });
});
