/**
 * Issue 21 §5 across processes: three real `lineage serve` processes on one PostgreSQL database and
 * one radosgw bucket, and 24 clients racing protocol delta POSTs at the same base sequence, spread
 * over the three, round after round: exactly one 201 per round, every other answer a 409 whose
 * X-Latest-Sequence is the winner's sequence, the ledger holding the winner's bytes, and nothing
 * else in the bucket's final keys. Then the download links' lifetimes (issue 21 §4): a presigned S3
 * GET carries LINEAGE_S3_DOWNLOAD_SECONDS as its expiry and outlives its key's revocation until it
 * expires; a proxied download is refused as soon as its key is revoked.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256Hex } from '@/lib/core/uuid';
import { openStorage, storageConfigFrom } from '@/lib/storage/config';
import type { LineageStorage } from '@/lib/storage/types';
import { runCli } from '@/tests/cli/run-cli';
import { freshBucket, freshDatabase, scaleOutEnv } from '@/tests/engines/use-engines';
import { deltaBytes, snapshotBytes } from './archives';
import { call, spawnServe, tempDataDir, type ChildServer } from './harness';

const OCTET = 'application/octet-stream';
const CLIENTS = 24;
const ROUNDS = 4;
let env: Record<string, string>;
let storage: LineageStorage;
let key = '';
let servers: ChildServer[] = [];

beforeAll(async () => {
  const [databaseUrl, { bucket, settings }] = await Promise.all([freshDatabase(), freshBucket()]);
  env = scaleOutEnv(databaseUrl, bucket, settings);
  storage = await openStorage(storageConfigFrom(env));
  key = (await storage.createApiKey({ name: 'race', now: new Date(), admin: true })).key;
  // A: proxied downloads (server-signed); B: presigned GETs living 30 s; C: presigned, the default lifetime.
  const settingsOf: Record<string, string>[] = [{ LINEAGE_S3_DOWNLOADS: 'proxied' }, { LINEAGE_S3_DOWNLOAD_SECONDS: '30' }, {}];
  servers = await Promise.all(settingsOf.map((extra) => spawnServe(['--port', '0', '--no-ui'], { ...env, ...extra, LINEAGE_DATA: tempDataDir() }, 120_000)));
}, 300_000);

afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop()));
  await storage?.close();
});

async function register(agentId: string, withKey: string): Promise<void> {
  const body = JSON.stringify({ id: agentId, name: 'race', source_runtime: 'openclaw' });
  expect((await call(`${servers[0]!.url}/v1/agents`, { method: 'POST', key: withKey, contentType: 'application/json', body })).status).toBe(201);
  expect((await call(`${servers[1]!.url}/v1/agents/${agentId}/snapshot`, { method: 'PUT', key: withKey, contentType: OCTET, body: await snapshotBytes(agentId) })).status).toBe(201);
}

describe('the 24-client race spread over three lineage serve processes', () => {
  it(`exactly one 201 per round for ${ROUNDS} rounds; the others 409 with the winner's sequence; the ledger holds the winner's bytes and the bucket nothing else`, async () => {
    const agent = randomUUID();
    await register(agent, key);
    for (let round = 0; round < ROUNDS; round++) {
      const base = round;
      const bodies = await Promise.all(Array.from({ length: CLIENTS }, (_, c) => deltaBytes(agent, base, round * 100 + c)));
      const replies = await Promise.all(bodies.map((body, c) =>
        call(`${servers[c % servers.length]!.url}/v1/agents/${agent}/deltas?base_sequence=${base}`, { method: 'POST', key, contentType: OCTET, body })));
      const created = replies.flatMap((r, c) => (r.status === 201 ? [c] : []));
      expect(created, `round ${round}: ${replies.map((r) => r.status).join(' ')}`).toHaveLength(1);
      const winner = created[0]!;
      expect(replies[winner]!.json.sequence).toBe(base + 1);
      for (const [c, reply] of replies.entries()) {
        if (c === winner) continue;
        expect(reply.status, `client ${c}: ${reply.text}`).toBe(409);
        expect(reply.headers.get('x-latest-sequence')).toBe(String(base + 1));
        expect(reply.json.error).toEqual(expect.any(String));
      }
      const entries = await storage.listEntries({ agentId: agent });
      expect(entries.map((e) => e.seq)).toEqual(Array.from({ length: round + 2 }, (_, i) => i));
      expect(entries.at(-1)!.sha256).toBe(sha256Hex(bodies[winner]!));
      expect(Buffer.from(await storage.readEntryBytes({ entry: entries.at(-1)! })).equals(Buffer.from(bodies[winner]!))).toBe(true);
      // Nothing but the ledger's blobs under the final keys: the 23 losers wrote none.
      expect(await storage.blobs.list(`${agent}/`)).toEqual(entries.map((e) => e.blob_key).sort());
    }
  });
});

describe('download links and revoked keys', () => {
  it('a presigned GET expires after LINEAGE_S3_DOWNLOAD_SECONDS and works until then even once its key is revoked; a proxied link dies with its key', async () => {
    const issued = await storage.createApiKey({ name: 'short-lived', now: new Date() });
    const agent = randomUUID();
    await register(agent, issued.key);
    const [proxied, presigned30, presignedDefault] = await Promise.all(servers.map(async (s) =>
      (await call(`${s.url}/v1/agents/${agent}/restore`, { key: issued.key })).json.snapshot.url as string));
    expect(new URL(proxied!).pathname).toMatch(/^\/v1\/blobs\//);
    expect(new URL(presigned30!).searchParams.get('X-Amz-Expires')).toBe('30');
    expect(new URL(presignedDefault!).searchParams.get('X-Amz-Expires')).toBe('300');
    for (const url of [proxied!, presigned30!]) expect((await fetch(url)).status).toBe(200);

    // Revoked with the CLI, on the same scale-out settings.
    const revoked = await runCli(['keys', 'revoke', issued.id], { ...env, LINEAGE_DATA: tempDataDir() });
    expect(revoked.json).toEqual({ ok: true, revoked: issued.id, agents: [agent], agents_to: null });
    const refused = await call(proxied!);
    expect(refused.status).toBe(403);
    expect(refused.json.error).toBe('signed URL was issued to an API key that has been revoked');
    // The bucket checks only the URL's own signature: this is the window LINEAGE_S3_DOWNLOAD_SECONDS bounds.
    expect((await fetch(presigned30!)).status).toBe(200);
  });
});
