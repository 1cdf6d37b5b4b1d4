/**
 * Several real `lineage serve` processes on one PostgreSQL database and one radosgw bucket act as one
 * service (issue 21 §5): what one process writes the other serves (protocol and dashboard API), a
 * race at one base sequence split across two processes leaves exactly one ledger entry, a session
 * and a signed URL made by one process are accepted by the other (same LINEAGE_SECRET) and refused
 * by a process with another secret, the presigned upload flow goes straight to S3, and a kill -9 of
 * one process mid-stream loses no acknowledged delta while the other keeps serving.
 */
import { spawnSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStorage, storageConfigFrom } from '@/lib/storage/config';
import type { LineageStorage } from '@/lib/storage/types';
import { freshBucket, freshDatabase, scaleOutEnv } from '@/tests/engines/use-engines';
import { deltaBytes, snapshotBytes } from './archives';
import { raw, signIn } from './dashboard-http';
import { call, spawnServe, tempDataDir, type ChildServer } from './harness';

const OCTET = 'application/octet-stream';
const SECRET = randomBytes(32).toString('hex');
let env: Record<string, string>;
let storage: LineageStorage;
let key = '';
let a: ChildServer;
let b: ChildServer;
let c: ChildServer;
const agent = randomUUID();
/** C's LINEAGE_MAX_UPLOAD_BYTES: S3 takes any size on a presigned PUT, the confirm must refuse more. */
const UPLOAD_LIMIT = 100_000;

/** The same request's path and query on another process (a load balancer's choice). */
const on = (server: ChildServer, url: string) => `${server.url}${new URL(url).pathname}${new URL(url).search}`;

beforeAll(async () => {
  const [databaseUrl, { bucket, settings }] = await Promise.all([freshDatabase(), freshBucket()]);
  env = scaleOutEnv(databaseUrl, bucket, settings, {
    LINEAGE_SECRET: SECRET,
    // Each process gets an empty data directory it must not need: nothing of the service is on local disk.
    LINEAGE_DATA: tempDataDir(),
  });
  storage = await openStorage(storageConfigFrom(env));
  key = (await storage.createApiKey({ name: 'ops', now: new Date(), admin: true })).key;
  // Server-signed download links (proxied) on A and B, so a URL signed by one is checked by the other.
  const proxied = { ...env, LINEAGE_S3_DOWNLOADS: 'proxied' };
  a = await spawnServe(['--port', '0', '--auth', 'required'], proxied, 900_000); // builds the dashboard when needed
  b = await spawnServe(['--port', '0', '--auth', 'required'], { ...proxied, LINEAGE_DATA: tempDataDir() }, 300_000);
  // C: protocol only, presigned downloads, and ANOTHER secret.
  c = await spawnServe(['--port', '0', '--no-ui'], {
    ...env, LINEAGE_DATA: tempDataDir(), LINEAGE_SECRET: randomBytes(32).toString('hex'), LINEAGE_MAX_UPLOAD_BYTES: String(UPLOAD_LIMIT),
  }, 120_000);
}, 1_500_000);

afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop(), c?.stop()]);
  await storage?.close();
});

describe('lineage serve ×3 on one PostgreSQL + one bucket', () => {
  it('register + snapshot through A, read through B: protocol GET, restore download, dashboard API by key and by A\'s session', async () => {
    const registered = await call(`${a.url}/v1/agents`, { method: 'POST', key, contentType: 'application/json', body: JSON.stringify({ id: agent, name: 'shared', source_runtime: 'openclaw' }) });
    expect(registered.status).toBe(201);
    const snapshot = await snapshotBytes(agent, { records: 5 });
    expect((await call(`${a.url}/v1/agents/${agent}/snapshot`, { method: 'PUT', key, contentType: OCTET, body: snapshot })).status).toBe(201);

    const info = await call(`${b.url}/v1/agents/${agent}`, { key });
    expect(info.status).toBe(200);
    expect(info.json.latest_sequence).toBe(0);
    // A restore link signed by A, fetched from B: same secret, the same bytes.
    const planA = await call(`${a.url}/v1/agents/${agent}/restore`, { key });
    expect(new URL(planA.json.snapshot.url).pathname).toMatch(/^\/v1\/blobs\//);
    const viaB = await fetch(on(b, planA.json.snapshot.url));
    expect(viaB.status).toBe(200);
    expect(Buffer.from(await viaB.arrayBuffer()).equals(Buffer.from(snapshot))).toBe(true);

    const byKey = await call(`${b.url}/api/agents`, { key });
    expect(byKey.status).toBe(200);
    expect(byKey.json.map((x: { id: string }) => x.id)).toContain(agent);
    const cookie = await signIn(a.url, key);
    const bySession = await raw(`${b.url}/api/agents/${agent}`, { headers: { cookie } });
    expect(bySession.status).toBe(200);
    expect(JSON.parse(bySession.text).id).toBe(agent);
    expect((await raw(`${b.url}/api/agents/${agent}`)).status).toBe(401);
  });

  it('a process with another LINEAGE_SECRET refuses A\'s signed URL (and its session is not a key)', async () => {
    const planA = await call(`${a.url}/v1/agents/${agent}/restore`, { key });
    const viaC = await call(on(c, planA.json.snapshot.url));
    expect(viaC.status).toBe(403);
    expect(viaC.json.error).toBe('signed URL signature is invalid');
    // C still reads the shared ledger with the key itself.
    expect((await call(`${c.url}/v1/agents/${agent}`, { key })).json.latest_sequence).toBe(0);
  });

  it('two concurrent deltas at one base, one to A and one to B: one 201, one 409 + X-Latest-Sequence, one ledger entry', async () => {
    const base = (await call(`${b.url}/v1/agents/${agent}`, { key })).json.latest_sequence as number;
    const bodies = await Promise.all([deltaBytes(agent, base, 1), deltaBytes(agent, base, 2)]);
    const replies = await Promise.all([a, b].map((server, i) =>
      call(`${server.url}/v1/agents/${agent}/deltas?base_sequence=${base}`, { method: 'POST', key, contentType: OCTET, body: bodies[i] })));
    expect(replies.map((r) => r.status).sort()).toEqual([201, 409]);
    const loser = replies.find((r) => r.status === 409)!;
    expect(loser.headers.get('x-latest-sequence')).toBe(String(base + 1));
    const entries = await storage.listEntries({ agentId: agent });
    expect(entries.filter((e) => e.seq === base + 1)).toHaveLength(1);
    const winner = bodies[replies.findIndex((r) => r.status === 201)]!;
    const link = (await call(`${a.url}/v1/agents/${agent}/deltas?since=${base}`, { key })).json.deltas[0];
    expect(Buffer.from(await (await fetch(on(b, link.url))).arrayBuffer()).equals(Buffer.from(winner))).toBe(true);
  });

  it('C hands out S3 presigned URLs: the upload goes to the bucket, confirm on C, download from the bucket equals the upload', async () => {
    const base = (await call(`${c.url}/v1/agents/${agent}`, { key })).json.latest_sequence as number;
    const initiated = await call(`${c.url}/v1/agents/${agent}/deltas/upload?base_sequence=${base}`, { method: 'POST', key });
    expect(initiated.status).toBe(200);
    const target = new URL(initiated.json.upload_url);
    expect(target.origin).toBe(new URL(env.AWS_ENDPOINT_URL_S3!).origin);
    expect(target.pathname).toMatch(new RegExp(`/svc/staging/${initiated.json.delta_id}$`));
    const body = await deltaBytes(agent, base, 3);
    expect((await fetch(target, { method: 'PUT', body: Buffer.from(body) })).status).toBe(200);
    const confirmed = await call(`${c.url}/v1/agents/${agent}/deltas/upload/${initiated.json.delta_id}/confirm`, { method: 'POST', key });
    expect(confirmed.status).toBe(201);
    expect(confirmed.json.sequence).toBe(base + 1);
    const link = (await call(`${c.url}/v1/agents/${agent}/deltas?since=${base}`, { key })).json.deltas[0];
    expect(new URL(link.url).origin).toBe(new URL(env.AWS_ENDPOINT_URL_S3!).origin);
    expect(Buffer.from(await (await fetch(link.url)).arrayBuffer()).equals(Buffer.from(body))).toBe(true);
  });

  it('a presigned upload over the limit is refused at confirm (from its ranged GET), nothing ingested, the staged upload gone', async () => {
    const before = await storage.listEntries({ agentId: agent });
    const initiated = await call(`${c.url}/v1/agents/${agent}/snapshot/upload`, { method: 'POST', key });
    const big = await snapshotBytes(agent, { rawBytes: 3 * UPLOAD_LIMIT });
    expect(big.byteLength).toBeGreaterThan(UPLOAD_LIMIT);
    expect((await fetch(initiated.json.upload_url, { method: 'PUT', body: Buffer.from(big) })).status).toBe(200);
    const confirmed = await call(`${c.url}/v1/agents/${agent}/snapshot/upload/${initiated.json.snapshot_id}/confirm`, { method: 'POST', key });
    // A 413, as the same bytes PUT to the server's own upload URL are answered (LINEAGE_MAX_UPLOAD_BYTES, README).
    expect(confirmed.status).toBe(413);
    expect(confirmed.json.error).toBe(`upload ${initiated.json.snapshot_id} holds ${big.byteLength} bytes, more than the limit ${UPLOAD_LIMIT}`);
    expect(await storage.listEntries({ agentId: agent })).toEqual(before);
    expect(await storage.uploads.get(initiated.json.snapshot_id)).toBeNull();
  });

  it('kill -9 of A during a stream of deltas: every acknowledged delta is in the ledger, B keeps serving', async () => {
    const acked: { seq: number; bytes: Uint8Array }[] = [];
    let base = (await call(`${a.url}/v1/agents/${agent}`, { key })).json.latest_sequence as number;
    const stream = (async () => {
      for (let n = 0; ; n += 1) {
        const bytes = await deltaBytes(agent, base, 100 + n);
        const reply = await call(`${a.url}/v1/agents/${agent}/deltas?base_sequence=${base}`, { method: 'POST', key, contentType: OCTET, body: bytes }).catch(() => null);
        if (!reply) return; // the connection died with the process
        expect(reply.status).toBe(201);
        acked.push({ seq: reply.json.sequence, bytes });
        base = reply.json.sequence;
      }
    })();
    while (acked.length < 5) await new Promise((resolve) => setTimeout(resolve, 20));
    await a.kill(); // SIGKILL while the stream keeps sending: a delta is in flight or about to be
    await stream;
    expect(a.child.signalCode).toBe('SIGKILL');

    const latest = (await call(`${b.url}/v1/agents/${agent}`, { key })).json.latest_sequence as number;
    expect(latest).toBeGreaterThanOrEqual(acked[acked.length - 1]!.seq);
    const links = (await call(`${b.url}/v1/agents/${agent}/deltas?since=${acked[0]!.seq - 1}`, { key })).json.deltas as { sequence: number; url: string }[];
    for (const { seq, bytes } of acked) {
      const link = links.find((l) => l.sequence === seq)!;
      expect(Buffer.from(await (await fetch(link.url)).arrayBuffer()).equals(Buffer.from(bytes))).toBe(true);
    }
    const next = await call(`${b.url}/v1/agents/${agent}/deltas?base_sequence=${latest}`, { method: 'POST', key, contentType: OCTET, body: await deltaBytes(agent, latest, 999) });
    expect(next.status).toBe(201);
    expect(next.json.sequence).toBe(latest + 1);
  });

  it('a bad scale-out setting is refused before anything opens: its message, exit code ≠ 0, no stack trace', () => {
    const cases: [Record<string, string>, RegExp][] = [
      [{ LINEAGE_BLOB_URL: '' }, /^LINEAGE_DATABASE_URL is set but LINEAGE_BLOB_URL is not/],
      [{ LINEAGE_SECRET: '' }, /^LINEAGE_SECRET is required with a database URL and a blob URL/],
      [{ LINEAGE_SECRET: 'abc' }, /^LINEAGE_SECRET/],
      [{ LINEAGE_DATABASE_URL: 'mysql://x/y' }, /^LINEAGE_DATABASE_URL/],
    ];
    for (const [bad, message] of cases) {
      const run = spawnSync(process.execPath, ['--import', 'tsx', path.resolve('lib/cli/main.ts'), 'serve', '--no-ui', '--port', '0'], {
        env: { ...process.env, ...env, ...bad }, encoding: 'utf8', timeout: 60_000,
      });
      expect(run.status).not.toBe(0);
      const out = JSON.parse(run.stdout.trim().split('\n').pop()!);
      expect(out).toMatchObject({ ok: false, code: 'invalid_argument' });
      expect(out.error).toMatch(message);
      expect(run.stderr).not.toMatch(/\n\s+at /);
      expect(run.stderr).not.toMatch(/listening on/);
    }
  }, 240_000);
});
