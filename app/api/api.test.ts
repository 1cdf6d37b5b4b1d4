/**
 * The dashboard's JSON routes called as Next would call them, over a data directory seeded through
 * the real sync pipeline (e2e/seed): status codes, error bodies, headers and streamed archives.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { LARGE, seed, type SeedManifest } from '@/e2e/seed/seed';
import { untarGz } from '@/e2e/untar';
import { FACTS } from '@/e2e/seed/openclaw-life';
import { guardHeaders } from '@/lib/server/scope-header';

let manifest: SeedManifest;
let agentId: string;

const params = <P>(p: P) => ({ params: Promise.resolve(p) });
// As the guard in front of Next passes a request of the open loopback dashboard (every tenant).
const req = (url: string) => new Request(`http://localhost${url}`, { headers: guardHeaders(undefined) });

beforeAll(async () => {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'lineage-api-'));
  process.env.LINEAGE_DATA = path.join(base, 'data');
  manifest = await seed(process.env.LINEAGE_DATA, path.join(base, 'scratch'));
  agentId = manifest.agentId;
});

describe('dashboard API routes', () => {
  it('lists agents with stats', async () => {
    const { GET } = await import('./agents/route');
    const res = await GET(req('/api/agents'), undefined);
    const body = (await res.json()) as { id: string; name: string; latest_sequence: number }[];
    // The seed's two agents: the scripted one, and one synced once with a large file.
    expect(body.map((a) => a.name).sort()).toEqual([LARGE.agentName, FACTS.agentName].sort());
    expect(body.find((a) => a.id === agentId)).toMatchObject({ name: FACTS.agentName, latest_sequence: 5 });
    expect(body.find((a) => a.name === LARGE.agentName)).toMatchObject({ latest_sequence: 0 });
  });

  it('lists the agents\' names alone for a filter (view=names), within the tenant scope; other views and parameters are a 400', async () => {
    const { GET } = await import('./agents/route');
    const fleet = (await (await GET(req('/api/agents'), undefined)).json()) as { id: string; name: string; runtime: string | null }[];
    const names = (await (await GET(req('/api/agents?view=names'), undefined)).json()) as unknown[];
    expect(names).toEqual(fleet.map((a) => ({ id: a.id, name: a.name, runtime: a.runtime })));
    // Another tenant's request sees none of the local agents.
    const scoped = new Request('http://localhost/api/agents?view=names', { headers: guardHeaders('k-other-tenant') });
    expect(await (await GET(scoped, undefined)).json()).toEqual([]);
    for (const bad of ['/api/agents?view=all', '/api/agents?limit=3']) {
      const res = await GET(req(bad), undefined);
      expect(res.status).toBe(400);
      expect(((await res.json()) as { error: string }).error).toMatch(/view|limit/);
    }
  });

  it('gives one agent with its stats, equal to its entry in the fleet list; 404 for an unknown agent', async () => {
    const fleet = (await (await (await import('./agents/route')).GET(req('/api/agents'), undefined)).json()) as { id: string }[];
    const { GET } = await import('./agents/[id]/route');
    for (const entry of fleet) {
      const res = await GET(req(`/api/agents/${entry.id}`), params({ id: entry.id.toUpperCase() }));
      expect(res.status).toBe(200);
      // The agent's own answer adds what the fleet list leaves out: the history index's notice (none here).
      expect(await res.json()).toEqual({ ...entry, index_notice: null });
    }
    const missing = await GET(req('/api/agents/x'), params({ id: '00000000-0000-0000-0000-000000000000' }));
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { error: string }).error).toMatch(/agent 00000000-0000-0000-0000-000000000000/);
  });

  it('pages sequences, and answers 400 for bad parameters and 404 for unknown agents', async () => {
    const { GET } = await import('./agents/[id]/sequences/route');
    const page = (await (await GET(req('/api/x?limit=2'), params({ id: agentId }))).json()) as { items: { seq: number }[]; next_before: number };
    expect(page.items.map((i) => i.seq)).toEqual([5, 4]);
    expect(page.next_before).toBe(4);
    const bad = await GET(req('/api/x?limit=zero'), params({ id: agentId }));
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: string }).error).toMatch(/limit/);
    expect((await GET(req('/api/x?bogus=1'), params({ id: agentId }))).status).toBe(400);
    expect((await GET(req('/api/x'), params({ id: 'no-such-agent' }))).status).toBe(404);
  });

  it('answers 404 for a sequence or record that does not exist', async () => {
    const seq = await import('./agents/[id]/sequences/[seq]/route');
    expect((await seq.GET(req('/'), params({ id: agentId, seq: '99' }))).status).toBe(404);
    expect((await seq.GET(req('/'), params({ id: agentId, seq: 'x' }))).status).toBe(400);
    const lineage = await import('./agents/[id]/records/[recordId]/route');
    expect((await lineage.GET(req('/'), params({ id: agentId, recordId: '00000000-0000-0000-0000-000000000000' }))).status).toBe(404);
  });

  it('every route under /api/agents/[id] answers 404 to a tenant that does not own the agent, in the handler too (not only in the guard)', async () => {
    // Files on disk, so a route added later is not left out.
    const found = (dir: string): string[] => fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
      e.isDirectory() ? found(path.join(dir, e.name)) : e.name === 'route.ts' ? [path.relative(path.join(__dirname, 'agents/[id]'), dir) || '.'] : []);
    const routes: Record<string, [() => Promise<{ GET: (r: Request, p: never) => Response | Promise<Response> }>, string, Record<string, string>]> = {
      '.': [() => import('./agents/[id]/route'), '', {}],
      at: [() => import('./agents/[id]/at/route'), '?time=2099-01-01', {}],
      compare: [() => import('./agents/[id]/compare/route'), '?from=0&to=1', {}],
      records: [() => import('./agents/[id]/records/route'), '', {}],
      'records/[recordId]': [() => import('./agents/[id]/records/[recordId]/route'), '', { recordId: '' }],
      sequences: [() => import('./agents/[id]/sequences/route'), '', {}],
      'sequences/[seq]': [() => import('./agents/[id]/sequences/[seq]/route'), '', { seq: '0' }],
      'sequences/[seq]/ops': [() => import('./agents/[id]/sequences/[seq]/ops/route'), '?op=create', { seq: '0' }],
      'sequences/[seq]/raw': [() => import('./agents/[id]/sequences/[seq]/raw/route'), '', { seq: '0' }],
      workspace: [() => import('./agents/[id]/workspace/route'), '', {}],
      'workspace/blame': [() => import('./agents/[id]/workspace/blame/route'), '?path=MEMORY.md', {}],
      'workspace/database': [() => import('./agents/[id]/workspace/database/route'), '', {}],
      'workspace/download': [() => import('./agents/[id]/workspace/download/route'), '?format=zip', {}],
      'workspace/file': [() => import('./agents/[id]/workspace/file/route'), '?path=MEMORY.md', {}],
      'workspace/records': [() => import('./agents/[id]/workspace/records/route'), '', {}],
    };
    expect(Object.keys(routes).sort()).toEqual(found(path.join(__dirname, 'agents/[id]')).sort());
    const records = await (await import('./agents/[id]/records/route')).GET(req('/api/x?limit=1'), params({ id: agentId }));
    const recordId = ((await records.json()) as { items: { record_id: string }[] }).items[0]!.record_id;
    for (const [route, [load, query, extra]] of Object.entries(routes)) {
      const { GET } = await load();
      const p = params({ id: agentId, ...extra, ...('recordId' in extra ? { recordId } : {}) }) as never;
      expect((await GET(req(`/api/x${query}`), p)).status, `${route}, the agent's owner`).toBe(200);
      const foreign = new Request(`http://localhost/api/x${query}`, { headers: guardHeaders('k-other-tenant') });
      const res = await GET(foreign, p);
      expect(res.status, `${route}, another tenant`).toBe(404);
      expect(await res.text(), route).not.toContain(FACTS.agentName);
    }
  });

  it('filters the records live at a sequence', async () => {
    const { GET } = await import('./agents/[id]/records/route');
    const res = await GET(req('/api/x?at=0&tier=hot'), params({ id: agentId }));
    const body = (await res.json()) as { at: number; items: { heading: string }[] };
    expect(body.at).toBe(0);
    expect(body.items.map((r) => r.heading).sort()).toEqual(['Editor preferences', 'Gateway', 'Team']);
    expect((await GET(req('/api/x?at=99'), params({ id: agentId }))).status).toBe(404);
  });

  it('filters by a value exactly as given: " hot" is not "hot" (it was trimmed), an empty one is a 400 as before', async () => {
    const { GET } = await import('./agents/[id]/records/route');
    const headings = async (query: string) => {
      const res = await GET(req(`/api/x?at=0&${query}`), params({ id: agentId }));
      expect(res.status, query).toBe(200);
      return ((await res.json()) as { items: { heading: string }[] }).items.map((r) => r.heading).sort();
    };
    expect(await headings('tier=hot')).toEqual(['Editor preferences', 'Gateway', 'Team']);
    for (const query of ['tier=%20hot', 'tier=hot%20', 'tier=%09hot', 'namespace=%20curated', 'file=%20MEMORY.md']) expect(await headings(query), query).toEqual([]);
    expect((await headings('file=MEMORY.md')).length).toBeGreaterThan(0);
    for (const query of ['tier=', 'namespace=']) {
      const res = await GET(req(`/api/x?${query}`), params({ id: agentId }));
      expect(res.status, query).toBe(400);
      expect(((await res.json()) as { error: string }).error).toMatch(/must not be empty/);
    }
    const changes = (await import('./changes/route')).GET;
    expect((await changes(req(`/api/changes?since=2000-01-01&agent=${agentId}`), undefined)).status).toBe(200);
    expect((await changes(req(`/api/changes?since=2000-01-01&agent=%20${agentId}`), undefined)).status).toBe(404);
  });

  it('validates changes and search parameters', async () => {
    const changes = await import('./changes/route');
    expect((await changes.GET(req('/api/changes?since=yesterdayish'), undefined)).status).toBe(400);
    expect((await changes.GET(req('/api/changes?op=rename'), undefined)).status).toBe(400);
    const deletes = (await (await changes.GET(req('/api/changes?since=30d&op=delete'), undefined)).json()) as { groups: { changes: { op: string }[] }[] };
    // The Team section's deletion; the daily log archived at sequence 4 is two moves, not deletes.
    expect(deletes.groups.flatMap((g) => g.changes.map((c) => c.op))).toEqual(['delete']);
    const moves = (await (await changes.GET(req('/api/changes?since=30d&op=move'), undefined)).json()) as
      { groups: { changes: { op: string; seq: number; from_file: string | null; origin_file: string | null }[] }[] };
    const moved = moves.groups.flatMap((g) => g.changes);
    expect(moved.map((c) => [c.op, c.seq])).toEqual([['move', 4], ['move', 4]]);
    expect(moved.every((c) => c.from_file?.startsWith('memory/episodic/') && c.origin_file?.startsWith('memory/archive/'))).toBe(true);
    const search = await import('./search/route');
    expect((await search.GET(req('/api/search?q='), undefined)).status).toBe(400);
    const found = (await (await search.GET(req(`/api/search?q=${FACTS.searchFact}`), undefined)).json()) as { first: { sequence: number; origin_file: string } };
    expect(found.first).toMatchObject({ sequence: FACTS.searchFactSeq, origin_file: FACTS.searchFactFile });
  });

  it('serves a workspace file as nosniff text, and 404 when it did not exist then', async () => {
    const { GET } = await import('./agents/[id]/workspace/file/route');
    const res = await GET(req('/api/x?seq=3&path=memory/semantic/notes.md'), params({ id: agentId }));
    expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await res.text()).toBe(manifest.steps[3]!['memory/semantic/notes.md']);
    expect((await GET(req('/api/x?seq=0&path=memory/semantic/notes.md'), params({ id: agentId }))).status).toBe(404);
  });

  it('streams the workspace at a sequence as a byte-exact .tar.gz named after the agent', async () => {
    const { GET } = await import('./agents/[id]/workspace/download/route');
    const res = await GET(req('/api/x?seq=2&format=tar.gz'), params({ id: agentId }));
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="${FACTS.agentName}-seq2.tar.gz"`);
    const files = await untarGz(Buffer.from(await res.arrayBuffer()));
    expect(Object.fromEntries([...files].map(([p, b]) => [p, b.toString('utf8')]))).toEqual(manifest.steps[2]);
    const alf = await GET(req('/api/x?seq=2&format=alf'), params({ id: agentId }));
    expect(alf.status).toBe(200);
    expect((await GET(req('/api/x?format=rar'), params({ id: agentId }))).status).toBe(400);
  });
});
