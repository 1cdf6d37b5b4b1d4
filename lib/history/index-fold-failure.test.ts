/**
 * A pending entry whose fold fails for a reason other than a damaged blob: the blob missing from the
 * blob store, its file unreadable, an intact blob (its sha256 matches) holding what the fold does not
 * take, the database's write lock held by another process past a read's wait. Every read of the
 * embedded storage folded first and threw what the fold threw (the dashboard's 500, or a read that
 * waited ten minutes for the lock): now the read answers from the history index as it stands, and
 * the agent's index notice says where it stops, why and what to run — to its tenant only. A failure
 * this process saw is not tried again (its blob read and inflated) by every read, until something
 * changes. The served pages: tests/server/index-fold-failure.test.ts.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { closeDatabase } from '@/db/client';
import { openLedger, type Ledger } from '@/lib/ledger';
import type { FsBlobStore } from '@/lib/ledger/blob-store';
import { embeddedStorage } from '@/lib/storage/embedded';
import { runCli } from '@/tests/cli/run-cli';
import { indexPending } from './pending-index';
import { twoPendingAgents } from './testing/pending-agents';

const BROKEN = '7b0f3c2e-7777-4a2b-8c3d-0000000000a1';
const HEALTHY = '7b0f3c2e-7777-4a2b-8c3d-0000000000a2';
const TENANT = 'tenant-a';
const OTHER = 'tenant-b';
const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

const twoAgents = () => twoPendingAgents({ broken: BROKEN, healthy: HEALTHY, tenant: TENANT, seeds: [71, 72], cleanups });

/** Every read verb an agent page makes, all answering (none throws), and the notice. */
async function readsAnswer(ledger: Ledger, last: { seq: number }) {
  const storage = embeddedStorage(ledger);
  const now = new Date();
  const stats = await storage.getAgentWithStats({ agentId: BROKEN, tenantId: TENANT, now });
  expect(stats?.latest_sequence).toBe(last.seq);
  expect((await storage.listAgentsWithStats({ tenantId: TENANT, now })).map((a) => a.id).sort()).toEqual([BROKEN, HEALTHY]);
  expect((await storage.getSequences({ agentId: BROKEN, tenantId: TENANT }))).not.toBeNull();
  expect(await storage.getWorkspaceTree({ agentId: BROKEN, tenantId: TENANT, seq: last.seq - 1 })).not.toBeNull();
  expect(await storage.search({ tenantId: TENANT, q: 'a' })).toBeDefined();
  // The other agent's entries were folded by the same reads.
  expect(indexPending(ledger.db.sqlite, HEALTHY)).toBe(false);
  expect(indexPending(ledger.db.sqlite, BROKEN)).toBe(true);
  expect(await storage.indexNotice({ agentId: HEALTHY, tenantId: TENANT })).toBeNull();
  expect(await storage.indexNotice({ agentId: BROKEN, tenantId: OTHER })).toBeNull();
  const notice = await storage.indexNotice({ agentId: BROKEN, tenantId: TENANT });
  expect(notice).toMatchObject({ agent_id: BROKEN, indexed_through: last.seq - 1, pending_from: last.seq, pending: 1 });
  expect(notice!.message).toContain(`stops at sequence ${last.seq - 1}`);
  expect(JSON.stringify(notice)).not.toContain(ledger.db.dataDir);
  return notice!;
}

describe('a fold that fails for a reason other than a damaged blob', () => {
  it('its blob missing from the blob store: the reads answer, the notice says missing or damaged', async () => {
    const { ledger, last, file } = await twoAgents();
    fs.rmSync(file);
    const notice = await readsAnswer(ledger, last);
    expect(notice.code).toBe('blob_corrupt');
    expect(notice.reason).toContain('missing or damaged');
  });

  it('its blob file unreadable (a directory where the file was): blob_unreadable, and what to make readable', async () => {
    const { ledger, last, file } = await twoAgents();
    const bytes = fs.readFileSync(file);
    fs.rmSync(file);
    fs.mkdirSync(file);
    const notice = await readsAnswer(ledger, last);
    expect(notice).toMatchObject({ code: 'blob_unreadable' });
    expect(notice.reason).toContain('could not be read');
    expect(notice.action).toContain('lineage doctor');
    expect(notice.action).toContain('lineage index --catch-up');
    // Put back, and the process restarted (its database closed and opened again: nothing noted), the read folds it and the notice is gone.
    fs.rmdirSync(file);
    fs.writeFileSync(file, bytes);
    const again = restart(ledger);
    expect(await embeddedStorage(again).indexNotice({ agentId: BROKEN, tenantId: TENANT })).toBeNull();
    expect(indexPending(again.db.sqlite)).toBe(false);
  });

  it('an intact blob (its sha256 recorded) that is no archive the fold reads: bad_archive, and the rebuild to run', async () => {
    const { ledger, last, key, file } = await twoAgents();
    // The bytes and the ledger's sha256 of them agree: the blob store hands them over, the fold cannot read them.
    const junk = Buffer.from('this is not an ALF archive');
    fs.rmSync(file);
    fs.writeFileSync((ledger.blobs as FsBlobStore).pathOf(key), junk);
    ledger.db.sqlite.prepare('UPDATE ledger_entries SET sha256 = ? WHERE agent_id = ? AND seq = ?').run(createHash('sha256').update(junk).digest('hex'), BROKEN, last.seq);
    const notice = await readsAnswer(ledger, last);
    expect(notice).toMatchObject({ code: 'bad_archive' });
    expect(notice.action).toContain('lineage index --rebuild');
  });

  it('the database\'s write-ahead log refusing writes (immutable: SQLITE_IOERR_WRITE): the reads answer, database_error', async () => {
    const { ledger, dir, last } = await twoAgents();
    const wal = path.join(dir, 'lineage.db-wal');
    expect(fs.existsSync(wal)).toBe(true);
    execFileSync('chattr', ['+i', wal]);
    let notice;
    // A serving process (its pages show the notice; its folds on its ingest thread). A one-shot read throws it instead.
    const storage = embeddedStorage(ledger);
    await expect(storage.getAgentWithStats({ agentId: BROKEN, tenantId: TENANT, now: new Date() })).rejects.toMatchObject({ code: 'SQLITE_IOERR_WRITE' });
    const maintenance = storage.startMaintenance({ log: () => {}, clock: () => new Date() });
    try {
      expect((await storage.getAgentWithStats({ agentId: BROKEN, tenantId: TENANT, now: new Date() }))?.latest_sequence).toBe(last.seq);
      expect((await storage.getAgentWithStats({ agentId: HEALTHY, tenantId: TENANT, now: new Date() }))).not.toBeNull();
      notice = await storage.indexNotice({ agentId: BROKEN, tenantId: TENANT });
      expect(await storage.indexNotice({ agentId: HEALTHY, tenantId: TENANT })).toMatchObject({ code: 'database_error' });
    } finally {
      await maintenance.stop();
      execFileSync('chattr', ['-i', wal]);
    }
    expect(notice).toMatchObject({ agent_id: BROKEN, pending_from: last.seq, code: 'database_error' });
    expect(notice!.reason).toContain('refused the fold');
    expect(JSON.stringify(notice)).not.toContain(dir);
    // Writable again and restarted: folded.
    const again = restart(ledger);
    expect(await embeddedStorage(again).indexNotice({ agentId: BROKEN, tenantId: TENANT })).toBeNull();
    expect(indexPending(again.db.sqlite)).toBe(false);
  });

  it('the write lock held by another process past a read\'s wait: the reads answer, busy; that process gone, a new handle folds it', async () => {
    const { ledger, last, dir } = await twoAgents();
    const holder = await holdWriteLock(path.join(dir, 'lineage.db'));
    let notice;
    // A serving process: its pages show the notice (a one-shot read would throw busy, as before).
    const storage = embeddedStorage(ledger);
    const maintenance = storage.startMaintenance({ log: () => {}, clock: () => new Date() });
    try {
      const stats = await storage.getAgentWithStats({ agentId: BROKEN, tenantId: TENANT, now: new Date() });
      expect(stats?.latest_sequence).toBe(last.seq);
      notice = await storage.indexNotice({ agentId: BROKEN, tenantId: TENANT });
      // Both agents wait: each one's notice says so.
      expect(await storage.indexNotice({ agentId: HEALTHY, tenantId: TENANT })).toMatchObject({ code: 'busy' });
    } finally {
      await maintenance.stop();
      holder.kill('SIGKILL');
      await new Promise((resolve) => holder.once('exit', resolve));
    }
    expect(notice).toMatchObject({ agent_id: BROKEN, pending_from: last.seq, code: 'busy' });
    expect(notice!.reason).toContain('write lock');
    // Within the minute this process leaves it alone; restarted, the read folds it.
    expect(await embeddedStorage(ledger).indexNotice({ agentId: BROKEN, tenantId: TENANT })).toMatchObject({ code: 'busy' });
    const again = restart(ledger);
    expect(await embeddedStorage(again).indexNotice({ agentId: BROKEN, tenantId: TENANT })).toBeNull();
    expect(indexPending(again.db.sqlite)).toBe(false);
  }, 60_000);
});

describe('a failure this process saw is not tried again by every read', () => {
  it('reads its damaged blob once; a repair by another process, or a restart, is seen', async () => {
    const { ledger, dir, last, key, file } = await twoAgents();
    const bytes = fs.readFileSync(file);
    fs.writeFileSync(file, 'not the blob');
    // The real blob store, its reads of the damaged blob counted.
    const blobs = ledger.blobs;
    const get = blobs.get.bind(blobs);
    let reads = 0;
    blobs.get = async (k: string) => {
      if (k === key) reads++;
      return get(k);
    };
    const storage = embeddedStorage(ledger);
    const now = new Date();
    expect(await storage.getAgentWithStats({ agentId: BROKEN, tenantId: TENANT, now })).not.toBeNull();
    expect(reads).toBe(1);
    for (let i = 0; i < 5; i++) {
      await storage.getAgentWithStats({ agentId: BROKEN, tenantId: TENANT, now });
      await storage.getSequences({ agentId: BROKEN, tenantId: TENANT });
      expect(await storage.indexNotice({ agentId: BROKEN, tenantId: TENANT })).toMatchObject({ code: 'blob_corrupt', pending_from: last.seq });
    }
    expect(reads).toBe(1);

    // Restarted (the database closed and opened again): tried once again, then left alone as well.
    const restarted = restart(ledger);
    const get2 = restarted.blobs.get.bind(restarted.blobs);
    let reads2 = 0;
    restarted.blobs.get = async (k: string) => {
      if (k === key) reads2++;
      return get2(k);
    };
    const storage2 = embeddedStorage(restarted);
    await storage2.getAgentWithStats({ agentId: BROKEN, tenantId: TENANT, now });
    await storage2.getAgentWithStats({ agentId: BROKEN, tenantId: TENANT, now });
    expect(await storage2.indexNotice({ agentId: BROKEN, tenantId: TENANT })).toMatchObject({ code: 'blob_corrupt' });
    expect(reads2).toBe(1);

    // Repaired: the blob restored and folded by `lineage index --catch-up` (its run, on this data directory);
    // the next read sees the entry folded (no blob read of its own), the notice gone.
    fs.writeFileSync(file, bytes);
    const catchUp = await runCli(['index', '--catch-up', '--data', dir]);
    expect(catchUp.json, catchUp.stderr).toEqual({ ok: true, folded: 1 });
    expect(await storage2.indexNotice({ agentId: BROKEN, tenantId: TENANT })).toBeNull();
    expect(indexPending(restarted.db.sqlite)).toBe(false);
    expect(reads2).toBe(1);
  });
});

/** The data directory of `ledger` as a restarted process sees it: its database closed and opened again. */
function restart(ledger: Ledger): Ledger {
  closeDatabase(ledger.db);
  const again = openLedger(ledger.db.dataDir);
  cleanups.unshift(() => closeDatabase(again.db));
  return again;
}

/** A second process that takes the database's write lock and holds it until killed. */
async function holdWriteLock(dbFile: string): Promise<ChildProcess> {
  const script = `const D = require('better-sqlite3'); const db = new D(${JSON.stringify(dbFile)}); db.exec('BEGIN IMMEDIATE'); process.stdout.write('locked\\n'); setInterval(() => {}, 1000);`;
  const child = spawn(process.execPath, ['-e', script], { cwd: process.cwd(), stdio: ['ignore', 'pipe', 'inherit'] });
  cleanups.push(() => child.kill('SIGKILL'));
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('locked')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`the lock holder exited (${code})`)));
  });
  return child;
}
