/**
 * The cases of hostile-fields.test.ts on the scale-out storage (a real `lineage serve` on PostgreSQL
 * and a radosgw bucket, sign-in required): its ingest (lib/storage/pg/ingest.ts) refuses each record
 * field of the wrong type with the same 400 as the embedded one, storing nothing, and takes what the
 * reference reader takes, which every page (by a session) and dashboard API route (by key) of the
 * agent, and `GET /v1/agents/:id/memory`, answer without a 5xx; another tenant sees none of it.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStorage, storageConfigFrom } from '@/lib/storage/config';
import type { LineageStorage } from '@/lib/storage/types';
import { freshBucket, freshDatabase, scaleOutEnv } from '@/tests/engines/use-engines';
import { snapshotBytes } from './archives';
import { raw, signIn } from './dashboard-http';
import { call, spawnServe, tempDataDir, type ChildServer } from './harness';
import { lineVerdicts, manifestVerdicts, none, REFUSED_LINES, REFUSED_MANIFESTS, TAKEN_LINES, TAKEN_MANIFESTS } from './duplicate-keys-cases';
import { fieldOf, HostileUploader, OCTET, pageFailures, routesOf } from './hostile-fields-cases';
import {
  fileRefVerdicts, layerVerdicts, REFUSED_FILE_REFS, REFUSED_LAYERS, REFUSED_SKIPPED, skippedVerdicts, TAKEN_FILE_REFS, TAKEN_LAYERS, TAKEN_SKIPPED,
} from './layer-cases';
import { fallbackMismatchVerdicts, manifestFieldVerdicts, REFUSED_FALLBACK_MANIFESTS, REFUSED_MANIFEST_FIELDS, TAKEN_MANIFEST_FIELDS } from './manifest-cases';

let storage: LineageStorage;
let server: ChildServer;
const keys = { a: '', b: '' };
const hostile = randomUUID();
const healthy = randomUUID();
let uploader: HostileUploader;

beforeAll(async () => {
  const [databaseUrl, { bucket, settings }] = await Promise.all([freshDatabase(), freshBucket()]);
  const env = scaleOutEnv(databaseUrl, bucket, settings, { LINEAGE_DATA: tempDataDir() });
  storage = await openStorage(storageConfigFrom(env));
  keys.a = (await storage.createApiKey({ name: 'a', now: new Date() })).key;
  keys.b = (await storage.createApiKey({ name: 'b', now: new Date() })).key;
  server = await spawnServe(['--port', '0', '--auth', 'required'], env, 900_000);
  uploader = new HostileUploader(server.url, hostile, keys.a);
  for (const [key, id] of [[keys.a, hostile], [keys.b, healthy]] as const) {
    expect((await call(`${server.url}/v1/agents`, { method: 'POST', key, contentType: 'application/json', body: JSON.stringify({ id, name: 'n', source_runtime: 'openclaw' }) })).status).toBe(201);
    expect((await call(`${server.url}/v1/agents/${id}/snapshot`, { method: 'PUT', key, contentType: OCTET, body: await snapshotBytes(id) })).status).toBe(201);
  }
}, 1_500_000);

afterAll(async () => {
  await server?.stop();
  await storage?.close();
});

describe('record fields of the wrong type, on PostgreSQL + S3', () => {
  it('each is refused as a delta and as a snapshot, 400 naming the field; the ledger is unchanged', async () => {
    const before = await storage.listEntries({ agentId: hostile });
    expect(await uploader.refusals()).toEqual([]);
    expect(await storage.listEntries({ agentId: hostile })).toEqual(before);
    expect(await uploader.latestSequence()).toBe(0);
  });

  it('what the reference takes is stored as it came, and every page and route of the agent answers without a 5xx', async () => {
    const taken = await uploader.takeAll();
    const seq = await uploader.latestSequence();
    const ids = taken.map((t) => String(t.rec.id));
    const cookie = await signIn(server.url, keys.a);
    const get = (url: string) => raw(`${server.url}${url}`, { headers: url.startsWith('/api/') ? { authorization: `Bearer ${keys.a}` } : { accept: 'text/html', cookie } });
    expect(await pageFailures(get, routesOf(hostile, seq, ids))).toEqual([]);
    expect((await get(`/agents/${hostile}`)).status).toBe(200);
    const memory = await call(`${server.url}/v1/agents/${hostile}/memory`, { key: keys.a });
    expect(memory.status, memory.text.slice(0, 300)).toBe(200);
    for (const { field, rec } of taken) {
      const reply = await call(`${server.url}/api/agents/${hostile}/records/${encodeURIComponent(String(rec.id))}`, { key: keys.a });
      expect(reply.status, field).toBe(200);
      expect(fieldOf(reply.json.versions.at(-1).record, field), field).toEqual(fieldOf(rec, field));
    }
  });

  it('the other tenant\'s key sees its own agent whole and nothing of the hostile one', async () => {
    const records = await call(`${server.url}/api/agents/${healthy}/records?at=0`, { key: keys.b });
    expect(records.status).toBe(200);
    expect(records.json.items).toHaveLength(3);
    expect((await call(`${server.url}/v1/agents/${healthy}/memory`, { key: keys.b })).status).toBe(200);
    expect((await call(`${server.url}/v1/agents/${hostile}`, { key: keys.b })).status).toBe(404);
    expect((await call(`${server.url}/api/agents/${hostile}/records?at=0`, { key: keys.b })).status).toBe(404);
  });
});

describe('keys given twice in one object, on PostgreSQL + S3 (duplicate-keys-cases.ts)', () => {
  it('a known field twice, plain or escaped, at each level of a record line or a manifest is refused: 400 naming the record and the key; the ledger is unchanged', async () => {
    const before = await storage.listEntries({ agentId: hostile });
    none(await lineVerdicts(uploader, REFUSED_LINES, true));
    none(await manifestVerdicts(uploader, REFUSED_MANIFESTS, true));
    expect(await storage.listEntries({ agentId: hostile })).toEqual(before);
  });

  it('an unknown key twice, a key twice in raw_source_format, the same key in different objects or in string values are taken', async () => {
    none(await lineVerdicts(uploader, TAKEN_LINES, false));
    none(await manifestVerdicts(uploader, TAKEN_MANIFESTS, false));
  });
});

describe('layer documents and delta lines readers skip, on PostgreSQL + S3 (layer-cases.ts)', () => {
  it('each the reference reader refuses is refused: 400 naming the file, the line and the key; the ledger is unchanged', async () => {
    const before = await storage.listEntries({ agentId: hostile });
    none(await layerVerdicts(uploader, server.url, keys.a, REFUSED_LAYERS, true));
    none(await skippedVerdicts(uploader, REFUSED_SKIPPED, true));
    expect(await storage.listEntries({ agentId: hostile })).toEqual(before);
  });

  it('what it reads is taken, and every page and route of the agent answers without a 5xx', async () => {
    none(await layerVerdicts(uploader, server.url, keys.a, TAKEN_LAYERS, false));
    none(await skippedVerdicts(uploader, TAKEN_SKIPPED, false));
    const seq = await uploader.latestSequence();
    const cookie = await signIn(server.url, keys.a);
    const get = (url: string) => raw(`${server.url}${url}`, { headers: url.startsWith('/api/') ? { authorization: `Bearer ${keys.a}` } : { accept: 'text/html', cookie } });
    expect(await pageFailures(get, routesOf(hostile, seq, []))).toEqual([]);
  });
});

describe('the files a manifest names for its layers, on PostgreSQL + S3 (layer-cases.ts)', () => {
  it('a listed layer whose file is not its fixed path, is not a string, is missing, or is not in the archive is refused: 400 naming the manifest field; the ledger is unchanged', async () => {
    const before = await storage.listEntries({ agentId: hostile });
    none(await fileRefVerdicts(uploader, server.url, keys.a, REFUSED_FILE_REFS, true));
    expect(await storage.listEntries({ agentId: hostile })).toEqual(before);
  });

  it('a layer listed at its fixed path and there, or a delta\'s without a file, is taken', async () => {
    none(await fileRefVerdicts(uploader, server.url, keys.a, TAKEN_FILE_REFS, false));
  });
});

describe('the manifests\' known fields, on PostgreSQL + S3 (manifest-cases.ts)', () => {
  it('a required field missing, a known field of another JSON type or null where the reference takes none, and a delta\'s memory file not memory/delta.jsonl are refused: 400 naming the manifest field; the ledger is unchanged', async () => {
    const before = await storage.listEntries({ agentId: hostile });
    none(await manifestFieldVerdicts(uploader, server.url, keys.a, REFUSED_MANIFEST_FIELDS, true));
    expect(await storage.listEntries({ agentId: hostile })).toEqual(before);
  });

  it('a delta whose manifest is stored as manifest.json (CONTRACT §3.2) is refused naming manifest.json, the file it holds; the usual one names delta-manifest.json', async () => {
    const before = await storage.listEntries({ agentId: hostile });
    none(await manifestFieldVerdicts(uploader, server.url, keys.a, REFUSED_FALLBACK_MANIFESTS, true));
    none(await fallbackMismatchVerdicts(uploader, server.url, keys.a));
    expect(await storage.listEntries({ agentId: hostile })).toEqual(before);
  });

  it('null layer entries and changes (not listed), every known field of its type, and unknown keys are taken', async () => {
    none(await manifestFieldVerdicts(uploader, server.url, keys.a, TAKEN_MANIFEST_FIELDS, false));
  });
});
