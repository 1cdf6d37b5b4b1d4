/**
 * A running `lineage serve` whose database a newer lineage migrates under it (README "Upgrading": a
 * newer command run before the old server was stopped) answers every request, protocol and dashboard,
 * `503 schema_newer` naming the fix, and writes nothing — on both backends. Before, the old server went
 * on serving by its own rules: a server from before migration 0015 answered every upload HTTP 500.
 *
 * "Newer" is what a newer release does: drizzle's migrator run on the live database with this
 * release's migrations folder plus one more real SQL migration (a copy in a temp directory).
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { drizzle as drizzleSqlite } from 'drizzle-orm/better-sqlite3';
import { migrate as migrateSqlite } from 'drizzle-orm/better-sqlite3/migrator';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { migrate as migratePgFolder } from 'drizzle-orm/node-postgres/migrator';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { freshBucket, freshDatabase, scaleOutEnv, testS3Client } from '@/tests/engines/use-engines';
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { deltaBytes, snapshotBytes } from './archives';
import { raw } from './dashboard-http';
import { call, issueKey, listFiles, spawnServe, tempDataDir, type ChildServer } from './harness';

const OCTET = 'application/octet-stream';
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'lineage-schema-newer-'));
const servers: ChildServer[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop()));
  fs.rmSync(tmp, { recursive: true, force: true });
});

/** A copy of `folder` with one more migration, as a newer release ships it (its journal time: 2100-01-01). */
function newerMigrations(folder: string, name: string, sql: string): { folder: string; known: number } {
  const copy = fs.mkdtempSync(path.join(tmp, 'migrations-'));
  fs.cpSync(folder, copy, { recursive: true });
  const journalFile = path.join(copy, 'meta', '_journal.json');
  const journal = JSON.parse(fs.readFileSync(journalFile, 'utf8')) as { entries: { idx: number; version: string; when: number; tag: string; breakpoints: boolean }[] };
  const known = journal.entries.length;
  const last = journal.entries[known - 1]!;
  journal.entries.push({ ...last, idx: last.idx + 1, when: Date.UTC(2100, 0, 1), tag: name });
  fs.writeFileSync(path.join(copy, `${name}.sql`), sql);
  fs.writeFileSync(journalFile, JSON.stringify(journal));
  return { folder: copy, known };
}

const message = (known: number) =>
  `the data directory was upgraded by a newer lineage (migration ${known + 1}, this server knows up to ${known}): restart the server with the newer lineage`;

/** Every request the old server gets after the upgrade: each is `503 schema_newer`. */
async function expectRefusedEverywhere(url: string, key: string, agent: string, known: number): Promise<void> {
  const refused = { error: message(known), code: 'schema_newer' };
  const newAgent = randomUUID();
  // A write first (always looked at, on both backends), then reads, the protocol's and the dashboard's.
  const replies = {
    register: await call(`${url}/v1/agents`, { method: 'POST', key, contentType: 'application/json', body: JSON.stringify({ id: newAgent, name: 'late', source_runtime: 'openclaw' }) }),
    delta: await call(`${url}/v1/agents/${agent}/deltas?base_sequence=0`, { method: 'POST', key, contentType: OCTET, body: await deltaBytes(agent, 0, 1) }),
    snapshot: await call(`${url}/v1/agents/${newAgent}/snapshot`, { method: 'PUT', key, contentType: OCTET, body: await snapshotBytes(newAgent, { records: 1 }) }),
    info: await call(`${url}/v1/agents/${agent}`, { key }),
    dashboardApi: await call(`${url}/api/agents`, { key }),
  };
  for (const [name, reply] of Object.entries(replies)) {
    expect({ name, status: reply.status, json: reply.json }).toEqual({ name, status: 503, json: refused });
  }
  const page = await raw(`${url}/`, { headers: { accept: 'text/html', authorization: `Bearer ${key}` } });
  expect(page.status).toBe(503);
  expect(page.headers['content-type']).toMatch(/^text\/html/);
  expect(page.text).toContain(message(known));
}

describe('a running server whose database a newer lineage migrated', () => {
  it('embedded: every request is 503 schema_newer, nothing is written', async () => {
    const dataDir = tempDataDir();
    const key = issueKey(dataDir, 'ops');
    const server = await spawnServe(['--port', '0', '--data', dataDir], {}, 900_000);
    servers.push(server);
    const agent = randomUUID();
    expect((await call(`${server.url}/v1/agents`, { method: 'POST', key, contentType: 'application/json', body: JSON.stringify({ id: agent, name: 'kept', source_runtime: 'openclaw' }) })).status).toBe(201);
    expect((await call(`${server.url}/v1/agents/${agent}/snapshot`, { method: 'PUT', key, contentType: OCTET, body: await snapshotBytes(agent, { records: 3 }) })).status).toBe(201);
    expect((await call(`${server.url}/api/agents`, { key })).status).toBe(200);

    // A newer lineage's command migrates the data directory while this server runs.
    const newer = newerMigrations(path.resolve('db/migrations'), '0099_future_rules', 'CREATE TABLE `future_rules` (`x` integer);\n');
    const file = path.join(dataDir, 'lineage.db');
    const sqlite = new Database(file);
    sqlite.pragma('busy_timeout = 5000');
    migrateSqlite(drizzleSqlite({ client: sqlite }), { migrationsFolder: newer.folder });
    const count = (table: string) => (sqlite.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
    const before = { agents: count('agents'), entries: count('ledger_entries'), blobs: listFiles(path.join(dataDir, 'blobs')) };
    expect(before.entries).toBe(1);

    await expectRefusedEverywhere(server.url, key, agent, newer.known);

    expect({ agents: count('agents'), entries: count('ledger_entries'), blobs: listFiles(path.join(dataDir, 'blobs')) }).toEqual(before);
    expect(fs.existsSync(path.join(dataDir, 'uploads')) ? listFiles(path.join(dataDir, 'uploads')) : []).toEqual([]);
    sqlite.close();
    expect(server.stderr()).toContain(`${message(newer.known)}; every request is answered 503 schema_newer`);
    expect(server.stderr()).not.toContain('internal error');
  }, 1_000_000);

  it('embedded: an upload whose body was still arriving when the database was migrated is refused, not written', async () => {
    const dataDir = tempDataDir();
    const key = issueKey(dataDir, 'ops');
    const server = await spawnServe(['--no-ui', '--port', '0', '--data', dataDir]);
    servers.push(server);
    const agent = randomUUID();
    expect((await call(`${server.url}/v1/agents`, { method: 'POST', key, contentType: 'application/json', body: JSON.stringify({ id: agent, name: 'slow', source_runtime: 'openclaw' }) })).status).toBe(201);
    const body = Buffer.from(await snapshotBytes(agent, { records: 3, rawBytes: 200_000 }));
    const half = Math.floor(body.byteLength / 2);
    let sent = (): void => undefined;
    const reply = new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = http.request(`${server.url}/v1/agents/${agent}/snapshot`, {
        method: 'PUT', headers: { authorization: `Bearer ${key}`, 'content-type': OCTET, 'content-length': String(body.byteLength) },
      }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      });
      req.on('error', reject);
      req.write(body.subarray(0, half));
      sent = () => req.end(body.subarray(half));
    });
    // Half the body sent before the upgrade. The answer must be the same whenever the server looked first; the
    // wait lets it look before the upgrade (its request checked, its body not whole), the case this covers.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const newer = newerMigrations(path.resolve('db/migrations'), '0099_future_rules', 'CREATE TABLE `future_rules` (`x` integer);\n');
    const sqlite = new Database(path.join(dataDir, 'lineage.db'));
    sqlite.pragma('busy_timeout = 5000');
    migrateSqlite(drizzleSqlite({ client: sqlite }), { migrationsFolder: newer.folder });
    const blobs = listFiles(path.join(dataDir, 'blobs'));
    sent();
    const answered = await reply;
    expect({ status: answered.status, json: JSON.parse(answered.text) }).toEqual({ status: 503, json: { error: message(newer.known), code: 'schema_newer' } });
    expect((sqlite.prepare('SELECT count(*) AS n FROM ledger_entries').get() as { n: number }).n).toBe(0);
    expect(listFiles(path.join(dataDir, 'blobs'))).toEqual(blobs);
    sqlite.close();
  }, 120_000);

  it('scale-out (PostgreSQL + S3): every request is 503 schema_newer, nothing is written', async () => {
    const [databaseUrl, { bucket, settings }] = await Promise.all([freshDatabase(), freshBucket()]);
    const env = scaleOutEnv(databaseUrl, bucket, settings, { LINEAGE_DATA: tempDataDir(), LINEAGE_S3_DOWNLOADS: 'proxied' });
    const server = await spawnServe(['--port', '0'], env, 900_000);
    servers.push(server);
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      // A key as `lineage keys create` makes it, through the running server's own database.
      const { createApiKey } = await import('@/lib/storage/pg/agents');
      const key = (await createApiKey(client as unknown as pg.Pool, { name: 'ops', now: new Date(), admin: true })).key;
      const agent = randomUUID();
      expect((await call(`${server.url}/v1/agents`, { method: 'POST', key, contentType: 'application/json', body: JSON.stringify({ id: agent, name: 'kept', source_runtime: 'openclaw' }) })).status).toBe(201);
      expect((await call(`${server.url}/v1/agents/${agent}/snapshot`, { method: 'PUT', key, contentType: OCTET, body: await snapshotBytes(agent, { records: 3 }) })).status).toBe(201);
      expect((await call(`${server.url}/api/agents`, { key })).status).toBe(200);

      const newer = newerMigrations(path.resolve('db/pg/migrations'), '0099_future_rules', 'CREATE TABLE "future_rules" ("x" integer);\n');
      await migratePgFolder(drizzlePg(client), { migrationsFolder: newer.folder });
      const s3 = testS3Client(settings);
      const state = async () => ({
        agents: (await client.query('SELECT count(*)::int AS n FROM agents')).rows[0].n as number,
        entries: (await client.query('SELECT count(*)::int AS n FROM ledger_entries')).rows[0].n as number,
        pending: (await client.query('SELECT count(*)::int AS n FROM pending_uploads')).rows[0].n as number,
        objects: ((await s3.send(new ListObjectsV2Command({ Bucket: bucket }))).Contents ?? []).map((o) => o.Key).sort(),
      });
      const before = await state();
      expect(before.entries).toBe(1);

      await expectRefusedEverywhere(server.url, key, agent, newer.known);

      expect(await state()).toEqual(before);
      s3.destroy();
      expect(server.stderr()).toContain(`${message(newer.known)}; every request is answered 503 schema_newer`);
      expect(server.stderr()).not.toContain('internal error');
    } finally {
      await client.end();
    }
  }, 1_000_000);
});
