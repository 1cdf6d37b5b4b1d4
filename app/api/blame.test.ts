/**
 * GET /api/agents/:id/workspace/blame called as Next calls it, over the hand-built blame history:
 * the JSON, and bad input said in words (400), a path or sequence that is not there (404), never a 500.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARCHIVED, buildBlameHistory, DAILY } from '@/lib/history/testing/blame-history';
import type { FileBlame } from '@/lib/history/queries/blame';
import { guardHeaders } from '@/lib/server/scope-header';

let agentId: string;
let cleanup: () => Promise<void>;
const params = <P>(p: P) => ({ params: Promise.resolve(p) });
const req = (url: string) => new Request(`http://localhost${url}`, { headers: guardHeaders(undefined) });

beforeAll(async () => {
  const history = await buildBlameHistory();
  agentId = history.agentId;
  cleanup = history.cleanup;
  process.env.LINEAGE_DATA = history.dataDir;
}, 120_000);
afterAll(async () => cleanup());

async function get(query: string, id = agentId) {
  const { GET } = await import('./agents/[id]/workspace/blame/route');
  const res = await GET(req(`/api/x${query}`), params({ id }));
  return { status: res.status, headers: res.headers, body: (await res.json()) as FileBlame & { error?: string } };
}

describe('GET /api/agents/:id/workspace/blame', () => {
  it('answers the blame of a file at a sequence, and at the latest without seq', async () => {
    const at3 = await get(`?seq=3&path=${encodeURIComponent(ARCHIVED)}`);
    expect(at3.status).toBe(200);
    expect(at3.headers.get('cache-control')).toContain('immutable');
    expect(at3.body).toMatchObject({ agent_id: agentId, seq: 3, path: ARCHIVED });
    const standup = at3.body.blocks.find((b) => b.kind === 'section' && b.heading === 'Standup');
    expect(standup).toMatchObject({ born: { seq: 0, file: DAILY }, changed: { seq: 0 }, moved: { seq: 3, from_file: DAILY } });
    const latest = await get('?path=MEMORY.md');
    expect(latest.status).toBe(200);
    expect(latest.headers.get('cache-control')).toBe('no-store');
    expect(latest.body.seq).toBe(4);
    expect(latest.body.blocks[0]).toMatchObject({ kind: 'file', line_start: 1, changed: { seq: 2 } });
  });

  it('says bad input in words (400), and what is not there (404); never a 500', async () => {
    const cases: [string, number, RegExp][] = [
      ['', 400, /path/],
      ['?path=', 400, /path/],
      ['?seq=abc&path=MEMORY.md', 400, /seq|sequence/i],
      ['?seq=-1&path=MEMORY.md', 400, /seq|sequence/i],
      ['?seq=1.5&path=MEMORY.md', 400, /seq|sequence/i],
      [`?path=MEMORY.md&colour=red`, 400, /colour/],
      [`?path=${'a/'.repeat(2100)}x`, 400, /path/],
      ['?seq=99&path=MEMORY.md', 404, /sequence 99/],
      [`?seq=2&path=${encodeURIComponent(ARCHIVED)}`, 404, /is not a file of the workspace at sequence 2/],
      [`?path=${encodeURIComponent(DAILY)}`, 404, /is not a file of the workspace at sequence 4/],
      ['?path=..%2F..%2Fetc%2Fpasswd', 404, /not a file/],
      ['?path=MEMORY.md%00', 404, /not a file/],
    ];
    for (const [query, status, message] of cases) {
      const res = await get(query);
      expect(res.status, query).toBe(status);
      expect(res.body.error, query).toMatch(message);
    }
    const unknown = await get('?path=MEMORY.md', '00000000-0000-0000-0000-000000000000');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toMatch(/agent/);
  });
});
