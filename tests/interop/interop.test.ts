/**
 * The reference CLI's request sequences (tests/interop/reference-client.ts, written from CONTRACT
 * §1–§2) against a real `lineage serve` child process: statuses, headers, JSON fields, downloaded
 * bytes — and then what the dashboard's query layer, its downloads and `lineage restore` show for
 * an agent synced with record-only deltas (no raw channel, as the reference sends before 0.1.10).
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import yauzl from 'yauzl';
import { describe, expect, it } from 'vitest';
import { closeDatabase, openDatabase, type LineageDb } from '@/db/client';
import { readSnapshot } from '@/lib/core/archive';
import { readZip, resolveLimits } from '@/lib/core/archive/zip-read';
import { getWorkspaceFile, getWorkspaceTree, streamWorkspaceArchive } from '@/lib/history/queries';
import { runCli } from '../cli/run-cli';
import type { ChildServer } from '../server/harness';
import { referenceServer } from './reference-server';
import { DIRECT_MAX, type ReferenceClient } from './reference-client';
import { DELETED_FILE, NEW_SECTION, largeDelta, recordOnlyDelta, standardWorkspace } from './reference-archives';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
let tmp: string;
let dataDir: string;
let key: string;
let server: ChildServer;
let client: ReferenceClient;

referenceServer('lineage-interop-', (s) => ({ tmp, dataDir, key, server, client } = s));

/** The dashboard's query layer over the server's data directory (what app/api/** calls). */
async function withDashboard<T>(read: (db: LineageDb) => Promise<T> | T): Promise<T> {
  const db = openDatabase(dataDir);
  try {
    return await read(db);
  } finally {
    closeDatabase(db);
  }
}

async function unzipStream(stream: NodeJS.ReadableStream): Promise<Map<string, string>> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  const zip = await yauzl.fromBufferPromise(Buffer.concat(chunks), { lazyEntries: true });
  const out = new Map<string, string>();
  for await (const entry of zip.eachEntry()) {
    const read = await zip.openReadStreamPromise(entry);
    const parts: Buffer[] = [];
    for await (const part of read) parts.push(part as Buffer);
    out.set(entry.fileName, Buffer.concat(parts).toString('utf8'));
  }
  return out;
}

async function methods(bytes: Uint8Array): Promise<number[]> {
  const zip = await yauzl.fromBufferPromise(Buffer.from(bytes), { lazyEntries: true });
  const out: number[] = [];
  for await (const entry of zip.eachEntry()) out.push(entry.compressionMethod);
  return out;
}

describe('the reference CLI against lineage serve', () => {
  let agentId: string;
  let snapshotBytes: Uint8Array;
  let deltaBytes: Uint8Array;
  let originalMemory: string;

  it('first sync: register 201 (no layer_counts), the register-409 path, snapshot PUT 201 at sequence 0', async () => {
    const ws = path.join(tmp, 'standard');
    const { exported, bytes, snapshot } = await standardWorkspace(ws);
    agentId = exported.agentId;
    snapshotBytes = bytes;
    originalMemory = await fs.readFile(path.join(ws, 'MEMORY.md'), 'utf8');
    const agent = { id: agentId, name: exported.agentName, source_runtime: 'openclaw' };

    const first = await client.register(agent);
    expect(first.created.status).toBe(201);
    expect(first.created.json).toMatchObject({ id: agentId, name: exported.agentName, source_runtime: 'openclaw', latest_sequence: 0 });
    expect(typeof first.created.json.created_at).toBe('string');
    expect(first.created.json).not.toHaveProperty('layer_counts');
    const again = await client.register(agent);
    expect(again).toMatchObject({ alreadyExisted: true, created: { status: 409 }, existing: { status: 200 } });
    expect(again.existing!.json).toMatchObject({ id: agentId, latest_sequence: 0, layer_counts: { credentials: 0, principals: 0, identity: 0 } });

    expect(bytes.byteLength).toBeLessThanOrEqual(DIRECT_MAX);
    expect((await methods(bytes)).every((m) => m === 8)).toBe(true);
    const put = await client.uploadSnapshot(agentId, bytes);
    expect(put.final.status).toBe(201);
    expect(put.final.json).toMatchObject({ sequence: 0, size_bytes: bytes.byteLength });
    expect(put.final.json.snapshot_id).toMatch(UUID);
    expect(snapshot.records.some((r) => r.source.origin_file === DELETED_FILE)).toBe(true);
  });

  it('a record-only delta: POST ?base_sequence=0 → 201 at 1; the same base again → 409 with X-Latest-Sequence: 1', async () => {
    const base = await readSnapshot(snapshotBytes);
    deltaBytes = await recordOnlyDelta(base.records, agentId, 0);
    const { files } = await readZip(deltaBytes, resolveLimits());
    expect([...files.keys()]).toEqual(['memory/delta.jsonl', 'delta-manifest.json']);
    expect((await methods(deltaBytes)).every((m) => m === 8)).toBe(true);

    const pushed = await client.pushDelta(agentId, 0, deltaBytes);
    expect(pushed.final.status).toBe(201);
    expect(pushed.final.json).toMatchObject({ sequence: 1, size_bytes: deltaBytes.byteLength });
    expect(pushed.final.json.delta_id).toMatch(UUID);
    const stale = await client.pushDelta(agentId, 0, deltaBytes);
    expect(stale.final.status).toBe(409);
    expect(stale.latest).toBe(1);
    expect((await client.getAgent(agentId)).json).toMatchObject({ latest_sequence: 1 });
  });

  it('a delta above 6,000,000 bytes goes presigned: initiate 200, PUT without auth 2xx, confirm 201 at 2', async () => {
    const { bytes } = await largeDelta(agentId, 1);
    expect(bytes.byteLength).toBeGreaterThan(DIRECT_MAX);
    const pushed = await client.pushDelta(agentId, 1, bytes);
    const [initiate, put, confirm] = pushed.steps;
    expect(initiate).toMatchObject({ status: 200 });
    expect(initiate!.json.delta_id).toMatch(UUID);
    expect(typeof initiate!.json.upload_url).toBe('string');
    expect(put!.status).toBeGreaterThanOrEqual(200);
    expect(put!.status).toBeLessThan(300);
    expect(confirm).toMatchObject({ status: 201, json: { sequence: 2, size_bytes: bytes.byteLength } });
    const sent = client.log.filter((r) => r.url === initiate!.json.upload_url);
    expect(sent).toEqual([{ method: 'PUT', url: initiate!.json.upload_url, auth: false, contentType: 'application/octet-stream' }]);
  });

  it('restore with up_to_sequence: the snapshot and the deltas up to it, downloaded without auth, byte-exact', async () => {
    const at1 = await client.restore(agentId, 1);
    expect(at1.reply.status).toBe(200);
    expect(at1.reply.json.snapshot).toMatchObject({ sequence: 0 });
    expect(at1.reply.json.deltas.map((d: { sequence: number }) => d.sequence)).toEqual([1]);
    expect(Buffer.from(at1.snapshot!).equals(Buffer.from(snapshotBytes))).toBe(true);
    expect(Buffer.from(at1.deltas[0]!.bytes).equals(Buffer.from(deltaBytes))).toBe(true);
    const head = await client.restore(agentId);
    expect(head.deltas.map((d) => d.sequence)).toEqual([1, 2]);
    expect((await client.restore(agentId, 9)).reply.status).toBe(400);
  });

  it('the dashboard shows the record-only delta: at #1 MEMORY.md has the new section (reconstructed), the deleted file is gone', async () => {
    await withDashboard(async (db) => {
      const at0 = getWorkspaceTree({ db, agentId, seq: 0 })!;
      expect(at0.files.map((f) => f.path)).toContain(DELETED_FILE);
      expect(at0.files.some((f) => f.reconstructed)).toBe(false);
      expect(Buffer.from(getWorkspaceFile({ db, agentId, seq: 0, path: 'MEMORY.md' })!).toString('utf8')).toBe(originalMemory);

      const at1 = getWorkspaceTree({ db, agentId, seq: 1 })!;
      expect(at1.files.map((f) => f.path)).not.toContain(DELETED_FILE);
      expect(at1.files.find((f) => f.path === 'MEMORY.md')).toMatchObject({ changed_seq: 1, reconstructed: true });
      expect(at1.files.filter((f) => f.reconstructed).map((f) => f.path)).toEqual(['MEMORY.md']);
      const memory = Buffer.from(getWorkspaceFile({ db, agentId, seq: 1, path: 'MEMORY.md' })!).toString('utf8');
      expect(memory).toContain(NEW_SECTION);
      expect(memory).toContain('Another important thing.');

      const zip = await unzipStream(streamWorkspaceArchive({ db, agentId, seq: 1, format: 'zip' })!);
      expect(zip.get('MEMORY.md')).toBe(memory);
      expect(zip.has(DELETED_FILE)).toBe(false);
      // The presigned delta's file is raw bytes: not marked.
      const at2 = getWorkspaceTree({ db, agentId, seq: 2 })!;
      expect(at2.files.find((f) => f.path === 'memory/attachments/scan.bin')).not.toHaveProperty('reconstructed');
    });
  });

  it('lineage restore --out at #1 writes the same files, reconstructed naming the rendered one', async () => {
    const out = path.join(tmp, 'restored-1');
    const run = await runCli(['restore', '--server', server.url, '--key', key, '--agent', agentId, '--at-sequence', '1', '--out', out]);
    expect(run.code).toBe(0);
    expect(run.json).toMatchObject({ ok: true, sequence: 1, reconstructed: ['MEMORY.md'] });
    await withDashboard(async (db) => {
      const shown = Buffer.from(getWorkspaceFile({ db, agentId, seq: 1, path: 'MEMORY.md' })!).toString('utf8');
      expect(await fs.readFile(path.join(out, 'MEMORY.md'), 'utf8')).toBe(shown);
    });
    await expect(fs.stat(path.join(out, DELETED_FILE))).rejects.toMatchObject({ code: 'ENOENT' });
    expect(await fs.readFile(path.join(out, 'memory/2026-01-15.md'), 'utf8'))
      .toBe(await fs.readFile(path.resolve(process.cwd(), '../shared/alf/fixtures/openclaw/standard/memory/2026-01-15.md'), 'utf8'));
  });

  it('our deltas pass the delta-manifest schema, Deflated', async () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    const schema = JSON.parse(await fs.readFile(path.resolve(process.cwd(), '../shared/alf/schemas/delta-manifest.schema.json'), 'utf8'));
    const { files } = await readZip(deltaBytes, resolveLimits());
    const manifest = JSON.parse(Buffer.from(files.get('delta-manifest.json')!).toString('utf8'));
    expect(ajv.validate(schema, manifest), JSON.stringify(ajv.errors)).toBe(true);
  });

  it('a snapshot above 6,000,000 bytes goes presigned too; delete removes the agent: 200 {deleted, objects_removed}, then 404', async () => {
    const other = { id: '0f0e0d0c-0b0a-4908-8706-050403020100', name: 'big', source_runtime: 'openclaw' };
    expect((await client.register(other)).created.status).toBe(201);
    const { bytes: big } = await largeDelta(other.id, 0);
    const ws = path.join(tmp, 'big');
    const { snapshot } = await standardWorkspace(ws);
    snapshot.manifest.agent = { ...(snapshot.manifest.agent as object), id: other.id };
    const { writeSnapshot } = await import('@/lib/core/archive');
    const bytes = await writeSnapshot({ ...snapshot, records: [], raw: new Map([...snapshot.raw, ['raw/openclaw/memory/big.bin', big]]) });
    expect(bytes.byteLength).toBeGreaterThan(DIRECT_MAX);
    const put = await client.uploadSnapshot(other.id, bytes);
    expect(put.steps.map((s) => s.status)).toEqual([200, expect.any(Number), 201]);
    expect(put.final.json).toMatchObject({ sequence: 0, size_bytes: bytes.byteLength });

    const deleted = await client.deleteAgent(agentId);
    expect(deleted.status).toBe(200);
    expect(deleted.json.deleted).toBe(true);
    expect(deleted.json.objects_removed).toBeGreaterThan(0);
    expect((await client.getAgent(agentId)).status).toBe(404);
    expect((await client.restore(agentId)).reply.status).toBe(404);
  });
});
