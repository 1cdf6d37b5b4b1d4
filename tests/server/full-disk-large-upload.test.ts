/**
 * A full disk while the ingest thread (lib/storage/offload.ts) stores a large upload: the 507
 * `disk_full` a small upload gets, nothing stored (no ledger row, no index row), and the server goes
 * on serving; the same upload is accepted once space is freed. A first snapshot of 30,001 memories
 * outgrows the ingest thread's page cache, so SQLite spills its pages to the WAL mid-transaction,
 * and the spill that finds the disk full rolls the whole transaction back (group-commit.ts).
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { createApiKey } from '@/lib/server/api-keys';
import { createLineageServer } from '@/lib/server/http-server';
import { embeddedLedger } from '@/lib/storage/embedded';
import { uploadsHandedToThreads } from '@/lib/storage/offload';
import { snapshotBytes } from './archives';
import { call, listFiles, tempDataDir } from './harness';
import { mountTinyDisk, resizeTinyDisk } from './mounts';

const OCTET = 'application/octet-stream';
const undo: (() => void)[] = [];
afterAll(() => {
  for (const u of undo.reverse()) u();
});

/**
 * What the data directory's database holds: the rows of every table (the ledger, the index, its
 * words, pending folds) and where each agent stands.
 */
function stored(dataDir: string): { rows: Record<string, number>; agents: unknown[] } {
  const db = new Database(path.join(dataDir, 'lineage.db'), { readonly: true });
  try {
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").pluck().all() as string[];
    return {
      rows: Object.fromEntries(tables.map((t) => [t, db.prepare(`SELECT count(*) FROM "${t}"`).pluck().get() as number])),
      agents: db.prepare('SELECT id, latest_sequence, latest_snapshot_seq FROM agents ORDER BY id').all(),
    };
  } finally {
    db.close();
  }
}

/** A server on `dataDir`, a key, and one registered agent. */
async function serveWithAgent(dataDir: string) {
  const server = await createLineageServer({ dataDir, port: 0, ui: false, log: () => undefined });
  const key = createApiKey({ db: embeddedLedger(server.service.storage).db, name: 't', now: new Date() }).key;
  const agent = randomUUID();
  const created = await call(`${server.url}/agents`, { method: 'POST', key, contentType: 'application/json', body: JSON.stringify({ id: agent, name: 'a', source_runtime: 'openclaw' }) });
  expect(created.status, created.text).toBe(201);
  return { server, key, url: server.url, agent };
}

/**
 * Fills the data directory's disk but `leave` bytes (a file the caller may delete): the WAL is
 * checkpointed first, so the server's checkpoints take no space meanwhile; the file is written
 * until the disk is full, then cut back by `leave`.
 */
function fillDisk(dataDir: string, leave: number): string {
  const db = new Database(path.join(dataDir, 'lineage.db'));
  try {
    db.pragma('wal_checkpoint(TRUNCATE)');
  } finally {
    db.close();
  }
  const filler = path.join(dataDir, 'filler');
  const fd = fs.openSync(filler, 'w');
  const chunk = Buffer.alloc(64 * 1024, 1);
  let size = 0;
  try {
    for (;;) size += fs.writeSync(fd, chunk);
  } catch (error) {
    if ((error as { code?: string }).code !== 'ENOSPC') throw error;
  }
  fs.ftruncateSync(fd, Math.max(0, size - leave));
  fs.closeSync(fd);
  return filler;
}

const fullAnswer = (dataDir: string) => ({ code: 'disk_full', error: `no space left on the disk holding ${dataDir}: free some space and retry (nothing was stored)` });

describe('a full disk during a large upload on the ingest thread', () => {
  it('SQLite full mid-transaction: a 507 disk_full, no ledger or index row, the server serves on, and the upload is taken once space is freed', async (ctx) => {
    const dataDir = tempDataDir();
    const unmount = mountTinyDisk(dataDir, 9 * 1024 * 1024);
    if (!unmount) ctx.skip(); // needs root and mount(8): the real condition is wanted, not a simulation
    undo.push(unmount!);
    const { server, key, url, agent } = await serveWithAgent(dataDir);
    try {
      const before = stored(dataDir);
      const agentBefore = (await call(`${url}/agents/${agent}`, { key })).json;
      const bytes = await snapshotBytes(agent, { records: 30_001 });
      const handed = uploadsHandedToThreads();
      const full = await call(`${url}/agents/${agent}/snapshot`, { method: 'PUT', key, contentType: OCTET, body: bytes });
      expect(full.status, full.text).toBe(507);
      expect(full.json).toEqual(fullAnswer(dataDir));
      expect(uploadsHandedToThreads() - handed).toBe(1);
      expect(stored(dataDir)).toEqual(before);
      expect(listFiles(path.join(dataDir, 'blobs')).filter((f) => f.includes('.tmp-'))).toEqual([]);
      // The server serves on: reads, and the same upload once the disk has room.
      const info = await call(`${url}/agents/${agent}`, { key });
      expect(info.status, info.text).toBe(200);
      expect(info.json).toEqual(agentBefore);
      expect(resizeTinyDisk(dataDir, 96 * 1024 * 1024)).toBe(true);
      const taken = await call(`${url}/agents/${agent}/snapshot`, { method: 'PUT', key, contentType: OCTET, body: bytes });
      expect(taken.status, taken.text).toBe(201);
      expect(uploadsHandedToThreads() - handed).toBe(2);
      expect(stored(dataDir)).toMatchObject({ rows: { ledger_entries: 1 }, agents: [{ id: agent, latest_sequence: 0, latest_snapshot_seq: 0 }] });
    } finally {
      await server.close();
    }
  }, 180_000);

  it('the blob write out of space (ENOSPC): the same 507, nothing stored, and the upload taken once space is freed', async (ctx) => {
    const dataDir = tempDataDir();
    const unmount = mountTinyDisk(dataDir, 4 * 1024 * 1024);
    if (!unmount) ctx.skip();
    undo.push(unmount!);
    const { server, key, url, agent } = await serveWithAgent(dataDir);
    try {
      const before = stored(dataDir);
      // Incompressible, larger than the disk.
      const bytes = await snapshotBytes(agent, { records: 50, rawBytes: 6 * 1024 * 1024 });
      const handed = uploadsHandedToThreads();
      const full = await call(`${url}/agents/${agent}/snapshot`, { method: 'PUT', key, contentType: OCTET, body: bytes });
      expect(full.status, full.text).toBe(507);
      expect(full.json).toEqual(fullAnswer(dataDir));
      expect(uploadsHandedToThreads() - handed).toBe(1);
      expect(stored(dataDir)).toEqual(before);
      expect(listFiles(path.join(dataDir, 'blobs')).filter((f) => f.includes('.tmp-'))).toEqual([]);
      expect(resizeTinyDisk(dataDir, 64 * 1024 * 1024)).toBe(true);
      const taken = await call(`${url}/agents/${agent}/snapshot`, { method: 'PUT', key, contentType: OCTET, body: bytes });
      expect(taken.status, taken.text).toBe(201);
    } finally {
      await server.close();
    }
  }, 180_000);

  it('the WAL out of space once the blob is written: the same 507, no ledger or index row, and the upload taken once space is freed', async (ctx) => {
    const dataDir = tempDataDir();
    const unmount = mountTinyDisk(dataDir, 32 * 1024 * 1024);
    if (!unmount) ctx.skip();
    undo.push(unmount!);
    const { server, key, url, agent } = await serveWithAgent(dataDir);
    try {
      const before = stored(dataDir);
      const bytes = await snapshotBytes(agent, { records: 8_000 });
      // Room for the blob, not for the pages the entry and its index add to the WAL.
      const filler = fillDisk(dataDir, bytes.byteLength + 64 * 1024);
      const handed = uploadsHandedToThreads();
      const full = await call(`${url}/agents/${agent}/snapshot`, { method: 'PUT', key, contentType: OCTET, body: bytes });
      expect(full.status, full.text).toBe(507);
      expect(full.json).toEqual(fullAnswer(dataDir));
      expect(uploadsHandedToThreads() - handed).toBe(1);
      expect(stored(dataDir)).toEqual(before);
      fs.rmSync(filler);
      const taken = await call(`${url}/agents/${agent}/snapshot`, { method: 'PUT', key, contentType: OCTET, body: bytes });
      expect(taken.status, taken.text).toBe(201);
      expect(stored(dataDir)).toMatchObject({ rows: { ledger_entries: 1 }, agents: [{ id: agent, latest_sequence: 0, latest_snapshot_seq: 0 }] });
    } finally {
      await server.close();
    }
  }, 180_000);
});
