/**
 * Queries never fail on data already stored (issue 18 §4): a record nested 1,000 deep that an
 * older server accepted — written straight into the index here, as such data sits in an old data
 * directory — must not break another agent's pages. SQLite's JSON functions throw past depth 1000.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { openLedger, registerAgent } from '@/lib/ledger';
import { ingestSnapshot } from '@/lib/storage/embedded-ingest';
import { snapshotBytes } from '@/tests/server/archives';
import { guardHeaders } from '@/lib/server/scope-header';

const healthy = '0190b000-0000-7000-8000-000000000001';
const odd = '0190b000-0000-7000-8000-000000000002';
const req = (url: string) => new Request(`http://localhost${url}`, { headers: guardHeaders(undefined) });
const params = <P>(p: P) => ({ params: Promise.resolve(p) });

beforeAll(async () => {
  const dataDir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'lineage-odd-')), 'data');
  process.env.LINEAGE_DATA = dataDir;
  const ledger = openLedger(dataDir);
  for (const id of [healthy, odd]) {
    registerAgent({ ledger, id, name: id === odd ? 'odd' : 'healthy', sourceRuntime: 'openclaw', tenantId: null, now: new Date() });
    await ingestSnapshot({ ledger, agentId: id, bytes: await snapshotBytes(id), now: new Date() });
  }
  const deep = `{"id":"x","raw_source_format":{"key":"k"},"deep":${'['.repeat(1000)}${']'.repeat(1000)}}`;
  const changed = ledger.db.sqlite.prepare('UPDATE record_versions SET record_json = ?, heading = NULL WHERE agent_id = ?').run(deep, odd).changes;
  expect(changed).toBeGreaterThan(0);
  expect(() => ledger.db.sqlite.prepare(`SELECT json_extract(record_json, '$.raw_source_format.key') FROM record_versions WHERE agent_id = ?`).all(odd))
    .toThrow(/JSON/);
  ledger.db.sqlite.close();
});

describe('a stored 1,000-deep record', () => {
  it('does not break GET /api/changes for anyone', async () => {
    const { GET } = await import('./changes/route');
    const res = await GET(req('/api/changes?since=2000-01-01'), undefined);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { groups: { agent_id: string; changes: { key: string | null }[] }[] };
    expect(body.groups.map((g) => g.agent_id).sort()).toEqual([healthy, odd]);
    expect(body.groups.find((g) => g.agent_id === odd)!.changes.every((c) => c.key === null)).toBe(true);
  });

  it('does not break the odd agent\'s own records page', async () => {
    const { GET } = await import('./agents/[id]/records/route');
    const res = await GET(req('/api/x?at=0'), params({ id: odd }));
    expect(res.status).toBe(200);
    expect(((await res.json()) as { items: unknown[] }).items.length).toBe(3);
  });
});
