/**
 * What the dashboard API's errors repeat of a caller's input — an agent id, a record id, a path, a
 * parameter name — is cut to its first 80 characters and how many more there were
 * (lib/core/echo.ts); a short one comes back exactly. The route handlers called as Next calls them.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { closeDatabase } from '@/db/client';
import { registerAgent } from '@/lib/ledger/agents';
import { openLedger } from '@/lib/ledger/ledger';
import { guardHeaders } from '@/lib/server/scope-header';

const LONG = 'q'.repeat(10_000);
const SHOWN = `${'q'.repeat(80)}… (9920 more characters)`;
const agentId = randomUUID();

const params = <P>(p: P) => ({ params: Promise.resolve(p) });
const req = (url: string) => new Request(`http://localhost${url}`, { headers: guardHeaders(undefined) });
const body = async (res: Response) => ({ status: res.status, json: (await res.json()) as unknown });

beforeAll(() => {
  process.env.LINEAGE_DATA = fs.mkdtempSync(path.join(os.tmpdir(), 'lineage-echo-'));
  const ledger = openLedger(process.env.LINEAGE_DATA);
  registerAgent({ ledger, id: agentId, name: 'echo', sourceRuntime: 'openclaw', tenantId: null, now: new Date() });
  closeDatabase(ledger.db);
});

describe('dashboard API errors that echo what the caller sent', () => {
  it('a 10,000-character agent id is cut in the 404 of every route that names it', async () => {
    const notFound = { status: 404, json: { error: `agent ${SHOWN} not found` } };
    const at = await import('./agents/[id]/at/route');
    expect(await body(await at.GET(req(`/api/agents/x/at?time=2026-01-01`), params({ id: LONG })))).toEqual(notFound);
    const one = await import('./agents/[id]/route');
    expect(await body(await one.GET(req('/api/agents/x'), params({ id: LONG })))).toEqual(notFound);
    const workspace = await import('./agents/[id]/workspace/route');
    expect(await body(await workspace.GET(req('/api/agents/x/workspace'), params({ id: LONG })))).toEqual(notFound);
    const changes = await import('./changes/route');
    expect(await body(await changes.GET(req(`/api/changes?agent=${'q'.repeat(500)}`), undefined)))
      .toEqual({ status: 404, json: { error: `agent ${'q'.repeat(80)}… (420 more characters) not found` } });
  });

  it('a short unknown agent id is echoed whole, as before', async () => {
    const one = await import('./agents/[id]/route');
    expect(await body(await one.GET(req('/api/agents/nope'), params({ id: 'nope' })))).toEqual({ status: 404, json: { error: 'agent nope not found' } });
  });

  it('a long record id is cut in its 404, and the agent\'s own id is kept whole', async () => {
    const lineage = await import('./agents/[id]/records/[recordId]/route');
    expect(await body(await lineage.GET(req('/api/agents/x/records/y'), params({ id: agentId, recordId: LONG }))))
      .toEqual({ status: 404, json: { error: `record ${SHOWN} not found` } });
  });

  it('an agent that never synced says so, its short id whole', async () => {
    const workspace = await import('./agents/[id]/workspace/route');
    expect(await body(await workspace.GET(req('/api/agents/x/workspace'), params({ id: agentId }))))
      .toEqual({ status: 404, json: { error: `agent ${agentId} has never synced` } });
  });

  it('a long paging cursor and a long count are cut the same', async () => {
    const changes = await import('./changes/route');
    expect(await body(await changes.GET(req(`/api/changes?cursor=${'x'.repeat(1999)}`), undefined))).toEqual({
      status: 400, json: { error: `The paging cursor "${'x'.repeat(80)}… (1919 more characters)" is not one this list gave out; start again from the first page.` },
    });
    const search = await import('./search/route');
    expect(await body(await search.GET(req(`/api/search?q=x&limit=${'y'.repeat(200)}`), undefined)))
      .toEqual({ status: 400, json: { error: `limit must be a positive whole number, got "${'y'.repeat(80)}… (120 more characters)"` } });
  });

  it('a long unknown parameter name is cut, and a thousand of them are counted, not listed', async () => {
    const search = await import('./search/route');
    expect(await body(await search.GET(req(`/api/search?q=x&${'p'.repeat(300)}=1`), undefined)))
      .toEqual({ status: 400, json: { error: `unknown parameter "${'p'.repeat(80)}… (220 more characters)": search takes q, agent, limit and offset` } });
    const agents = await import('./agents/route');
    const many = Array.from({ length: 1000 }, (_, i) => `k${i}=1`).join('&');
    const reply = await body(await agents.GET(req(`/api/agents?${many}`), undefined));
    expect(reply).toEqual({ status: 400, json: { error: expect.stringMatching(/^“k0”, “k1”, .*“k9” and 990 more are not parameters of this page\.$/) } });
  });
});
