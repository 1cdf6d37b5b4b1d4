/**
 * The dashboard on either process shows the same thing (issue 21 §5), for its last three reads:
 * two real `lineage serve` processes with the dashboard on one PostgreSQL database and one radosgw
 * bucket; histories synced through the real client (lib/storage/testing/synced-histories.ts) are
 * uploaded through A's protocol, then the compare (API and page), the blame and the database rows
 * are asked of both A and B — cursors of one used on the other. Their answers are equal, and they
 * are the embedded backend's answers for the same uploads (sync times aside: each backend stamps
 * its own), which the conformance suite holds to the expected ones.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openEmbeddedStorage, type EmbeddedStorage } from '@/lib/storage/embedded';
import { openStorage, storageConfigFrom } from '@/lib/storage/config';
import type { LineageStorage } from '@/lib/storage/types';
import { COMPARE_FACTS as F } from '@/lib/history/testing/compare-history';
import { ARCHIVED, DAILY } from '@/lib/history/testing/blame-history';
import { blameUploads, compareUploads, hermesUploads, zeroclawUploads, type SyncedHistory } from '@/lib/storage/testing/synced-histories';
import { freshBucket, freshDatabase, scaleOutEnv } from '@/tests/engines/use-engines';
import { raw, signIn } from './dashboard-http';
import { call, spawnServe, tempDataDir, type ChildServer } from './harness';

const OCTET = 'application/octet-stream';
let storage: LineageStorage;
let embedded: EmbeddedStorage;
let embeddedDir = '';
let key = '';
let a: ChildServer;
let b: ChildServer;
const h = {} as Record<'compare' | 'blame' | 'zeroclaw' | 'hermes', SyncedHistory>;

/** Uploads a history through a server's protocol (register, snapshot PUT, deltas at their base). */
async function upload(server: ChildServer, history: SyncedHistory): Promise<void> {
  const registered = await call(`${server.url}/v1/agents`, {
    method: 'POST', key, contentType: 'application/json', body: JSON.stringify({ id: history.agentId, name: history.name, source_runtime: history.runtime }),
  });
  expect(registered.status).toBe(201);
  for (const u of history.uploads) {
    const url = u.kind === 'snapshot' ? `${server.url}/v1/agents/${u.agentId}/snapshot` : `${server.url}/v1/agents/${u.agentId}/deltas?base_sequence=${u.baseSequence}`;
    const reply = await call(url, { method: u.kind === 'snapshot' ? 'PUT' : 'POST', key, contentType: OCTET, body: u.bytes });
    expect(reply.status, reply.text).toBe(201);
  }
}

/** The same uploads into the embedded backend, at their sync times. */
async function ingestEmbedded(history: SyncedHistory): Promise<void> {
  await embedded.registerAgent({ id: history.agentId, name: history.name, sourceRuntime: history.runtime, tenantId: null, now: history.uploads[0]!.now });
  for (const u of history.uploads) {
    if (u.kind === 'snapshot') await embedded.ingestSnapshot({ agentId: u.agentId, bytes: u.bytes, now: u.now });
    else await embedded.ingestDelta({ agentId: u.agentId, baseSequence: u.baseSequence, bytes: u.bytes, now: u.now });
  }
}

/** A dashboard API answer from `server` (by key): its status and JSON. */
async function api(server: ChildServer, path: string): Promise<{ status: number; json: any }> {
  const reply = await call(`${server.url}${path}`, { key });
  return { status: reply.status, json: reply.json };
}

/** The same question to A and B: equal answers (status and JSON); the answer. */
async function both(path: string): Promise<{ status: number; json: any }> {
  const [fromA, fromB] = await Promise.all([api(a, path), api(b, path)]);
  expect(fromB, path).toEqual(fromA);
  return fromA;
}

/** An answer as JSON carries it, with every sync time (`at`, `synced_at`) blanked: each backend stamps its own. */
function timeless(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value), (k, v) => (k === 'at' || k === 'synced_at' ? '<time>' : v));
}

beforeAll(async () => {
  const [databaseUrl, { bucket, settings }] = await Promise.all([freshDatabase(), freshBucket()]);
  const env = scaleOutEnv(databaseUrl, bucket, settings, { LINEAGE_BLOB_URL: `s3://${bucket}/dash`, LINEAGE_DATA: tempDataDir() });
  storage = await openStorage(storageConfigFrom(env));
  key = (await storage.createApiKey({ name: 'ops', now: new Date(), admin: true })).key;
  embeddedDir = tempDataDir();
  embedded = openEmbeddedStorage(embeddedDir);
  [h.compare, h.blame, h.zeroclaw, h.hermes] = [await compareUploads(), await blameUploads(), await zeroclawUploads(), await hermesUploads()];
  a = await spawnServe(['--port', '0', '--auth', 'required'], env, 900_000); // builds the dashboard when needed
  b = await spawnServe(['--port', '0', '--auth', 'required'], { ...env, LINEAGE_DATA: tempDataDir() }, 300_000);
  for (const history of Object.values(h)) {
    await upload(a, history);
    await ingestEmbedded(history);
  }
}, 1_500_000);

afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
  await storage?.close();
  await embedded?.close();
  if (embeddedDir) fs.rmSync(embeddedDir, { recursive: true, force: true });
});

describe('the dashboard on either of two lineage serve processes (one PostgreSQL + one bucket) shows the same compare, blame and database rows', () => {
  it('compare API: A and B answer every pair of sequences alike, the embedded backend\'s answers; from > to a 400 and past the latest a 404 on both', async () => {
    const agentId = h.compare.agentId;
    const c = (await both(`/api/agents/${agentId}/compare?from=1&to=3`)).json;
    expect(c.memories.created.map((m: { heading: string }) => m.heading)).toEqual(['Fresh']);
    expect(c.memories.deleted.map((m: { heading: string }) => m.heading)).toEqual(['Drop']);
    expect(c.memories.moved.map((m: { after: { heading: string; origin_file: string } }) => [m.after.heading, m.after.origin_file]))
      .toEqual([['Webhook replay', F.webhookTo], ['Standup', F.standupTo]]);
    expect(c.files.removed.map((f: { path: string }) => f.path)).toEqual(['TOOLS.md', F.webhookFrom, F.standupFrom]);
    for (let from = 0; from <= 4; from++) {
      for (let to = from; to <= 4; to++) {
        const answer = await both(`/api/agents/${agentId}/compare?from=${from}&to=${to}`);
        expect(answer.status).toBe(200);
        expect(answer.json).toEqual(timeless(await embedded.compareWorkspace({ agentId, from, to })));
      }
    }
    const reversed = await both(`/api/agents/${agentId}/compare?from=3&to=1`);
    expect([reversed.status, reversed.json.error]).toEqual([400, expect.stringMatching(/comes after the second/)]);
    const past = await both(`/api/agents/${agentId}/compare?from=1&to=5`);
    expect([past.status, past.json.error]).toEqual([404, expect.stringMatching(/^Sequence #5 does not exist/)]);
  });

  it('compare page: signed in on A, the page drawn by A and by B shows the same entries, with the changed files\' diffs read from the bucket-backed index', async () => {
    const cookie = await signIn(a.url, key);
    const path = `/agents/${h.compare.agentId}/compare?from=1&to=3`;
    const shown = async (server: ChildServer) => {
      // A browser's document load (the protocol answers /agents/… otherwise).
      const reply = await raw(`${server.url}${path}`, { headers: { cookie, accept: 'text/html' } });
      expect(reply.status).toBe(200);
      const count = (pattern: RegExp) => (reply.text.match(pattern) ?? []).length;
      const kinds = (testId: string) => [...reply.text.matchAll(new RegExp(`data-testid="${testId}" data-kind="(\\w+)"`, 'g'))].map((m) => m[1]);
      return {
        memories: kinds('compare-memory'), files: kinds('compare-file'), diffLines: count(/data-testid="diff-line"/g),
        summary: /data-testid="compare-summary"[^>]*>(.*?)<\/span>/.exec(reply.text)?.[1],
      };
    };
    const onA = await shown(a);
    expect(await shown(b)).toEqual(onA);
    expect(onA.memories.sort()).toEqual(['created', 'deleted', 'moved', 'moved', 'updated', 'updated']);
    expect(onA.files.sort()).toEqual(['added', 'added', 'changed', 'changed', 'removed', 'removed', 'removed']);
    expect(onA.diffLines).toBeGreaterThan(0);
  });

  it('blame API: A and B answer every file at every sequence alike, the embedded backend\'s answers; a moved section keeps its birth', async () => {
    let asked = 0;
    for (const history of [h.blame, h.compare, h.zeroclaw, h.hermes]) {
      const { agentId } = history;
      const latest = (await embedded.getAgent({ agentId }))!.latest_sequence!;
      for (let seq = 0; seq <= latest; seq++) {
        for (const file of (await embedded.getWorkspaceTree({ agentId, seq }))!.files) {
          const answer = await both(`/api/agents/${agentId}/workspace/blame?seq=${seq}&path=${encodeURIComponent(file.path)}`);
          expect(answer.status).toBe(200);
          expect(timeless(answer.json)).toEqual(timeless(await embedded.getFileBlame({ agentId, seq, path: file.path })));
          asked++;
        }
      }
    }
    expect(asked).toBeGreaterThan(30);
    const moved = (await both(`/api/agents/${h.blame.agentId}/workspace/blame?seq=3&path=${encodeURIComponent(ARCHIVED)}`)).json;
    expect(moved.blocks.find((x: { heading?: string }) => x.heading === 'Standup')).toMatchObject({ born: { seq: 0, file: DAILY }, moved: { seq: 3, from_file: DAILY } });
    const gone = await both(`/api/agents/${h.blame.agentId}/workspace/blame?seq=4&path=${encodeURIComponent(DAILY)}`);
    expect([gone.status, gone.json.error]).toEqual([404, expect.stringMatching(/is not a file of the workspace at sequence 4/)]);
  });

  it('database rows: ZeroClaw and Hermes at every sequence, paged with A\'s cursors on B and B\'s on A, equal and the embedded backend\'s rows', async () => {
    for (const history of [h.zeroclaw, h.hermes]) {
      const { agentId } = history;
      for (let seq = 0; seq <= 2; seq++) {
        const whole = await both(`/api/agents/${agentId}/workspace/records?seq=${seq}`);
        expect(whole.status).toBe(200);
        expect(timeless(whole.json)).toEqual(timeless(await embedded.getDatabaseRecords({ agentId, seq })));
        expect(whole.json.total).toBeGreaterThan(3);
        const items: unknown[] = [];
        let cursor: string | null = null;
        for (let page = 0; page === 0 || cursor; page++) {
          const server = page % 2 === 0 ? a : b;
          const reply = await api(server, `/api/agents/${agentId}/workspace/records?seq=${seq}&limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
          expect(reply.status).toBe(200);
          items.push(...reply.json.items);
          cursor = reply.json.next_cursor;
        }
        expect(items).toEqual(whole.json.items);
      }
    }
    const bad = await both(`/api/agents/${h.zeroclaw.agentId}/workspace/records?cursor=nonsense`);
    expect([bad.status, bad.json.error]).toEqual([400, expect.stringMatching(/paging cursor/)]);
    expect((await both(`/api/agents/${h.zeroclaw.agentId}/workspace/records?seq=9`)).status).toBe(404);
  });
});
