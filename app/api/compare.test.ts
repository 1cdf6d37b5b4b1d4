/**
 * GET /api/agents/:id/compare over a hand-built history: the net change in JSON, and every bad
 * range a 4xx said in words (never a 500).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMPARE_FACTS as F, compareHistory } from '@/lib/history/testing/compare-history';
import type { WorkspaceComparison } from '@/lib/history/queries';
import { guardHeaders } from '@/lib/server/scope-header';

let agentId: string;
let cleanup: () => Promise<void>;

beforeAll(async () => {
  const history = await compareHistory();
  agentId = history.agentId;
  cleanup = history.cleanup;
  process.env.LINEAGE_DATA = history.dataDir;
}, 60_000);

afterAll(async () => {
  await cleanup();
});

async function get(query: string, agent = agentId) {
  const { GET } = await import('./agents/[id]/compare/route');
  const res = await GET(new Request(`http://localhost/api/agents/${agent}/compare${query}`, { headers: guardHeaders(undefined) }), { params: Promise.resolve({ id: agent }) });
  return { status: res.status, body: (await res.json()) as WorkspaceComparison & { error?: string } };
}

describe('GET /api/agents/:id/compare', () => {
  it('answers the net change from A to B: created, updated, deleted, moved memories and added, changed, removed files', async () => {
    const { status, body } = await get('?from=1&to=3');
    expect(status).toBe(200);
    expect(body.memories.created.map((m) => m.heading)).toEqual(['Fresh']);
    expect(body.memories.updated.map((u) => [u.after.heading, u.before.content.trim(), u.after.content.trim()])).toEqual([
      ['Edit', expect.stringContaining(F.edit[1]), expect.stringContaining(F.edit[2])],
      ['Gateway', expect.stringContaining(F.gateway[0]), expect.stringContaining(F.gateway[1])],
    ]);
    expect(body.memories.deleted.map((m) => m.heading)).toEqual(['Drop']);
    expect(body.memories.moved.map((m) => [m.after.heading, m.before.origin_file, m.after.origin_file, m.content_changed])).toEqual([
      ['Webhook replay', F.webhookFrom, F.webhookTo, false],
      ['Standup', F.standupFrom, F.standupTo, true],
    ]);
    expect(body.files.removed.map((f) => f.path)).toEqual(['TOOLS.md', F.webhookFrom, F.standupFrom]);
    expect(body.files.added.map((f) => f.path)).toEqual([F.webhookTo, F.standupTo]);
    expect(body.files.changed.map((f) => f.path)).toEqual(['MEMORY.md', F.infra]);
  });

  it('compares a sequence with itself to nothing', async () => {
    const { status, body } = await get('?from=2&to=2');
    expect(status).toBe(200);
    expect(Object.values(body.counts).every((n) => n === 0)).toBe(true);
  });

  it.each([
    ['', /The first sequence \(from\) is required\..*The second sequence \(to\) is required\./],
    ['?from=1', /The second sequence \(to\) is required\./],
    ['?from=abc&to=3', /The first sequence \(from\) must be a non-negative integer\./],
    ['?from=-1&to=3', /The first sequence \(from\) must be a non-negative integer\./],
    ['?from=1.5&to=3', /The first sequence \(from\) must be a non-negative integer\./],
    ['?from=1&to=99999999999999999999', /The second sequence \(to\) must be at most/],
    ['?from=3&to=1', /The first sequence \(from, #3\) comes after the second \(to, #1\)/],
    ['?from=1&to=3&colour=red', /“colour” is not a parameter of this page\./],
  ])('%s is a 400 said in words', async (query, message) => {
    const { status, body } = await get(query);
    expect(status).toBe(400);
    expect(body.error).toMatch(message);
  });

  it('a sequence past the latest is a 404 in words, as is an unknown agent', async () => {
    const past = await get('?from=1&to=5');
    expect(past.status).toBe(404);
    expect(past.body.error).toMatch(/^Sequence #5 does not exist: the sequences of .+ run from 0 to 4\.$/);
    const unknown = await get('?from=0&to=1', '00000000-0000-0000-0000-000000000000');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toMatch(/not found/);
  });
});
