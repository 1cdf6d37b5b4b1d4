/**
 * A local sync's large uploads are ingested on the ingest thread (lib/storage/offload.ts), as a
 * server ingests in a process of its own, while the sync's own thread writes its client state:
 * the same entries, blobs, index and errors as when they are ingested on the sync's thread. (A
 * first snapshot whose fold is deferred is checked as written instead, on the sync's thread.)
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, expect, it } from 'vitest';
import { closeDatabase } from '@/db/client';
import { dumpIndex } from '@/lib/history/testing/temp-ledger';
import { listEntries, openLedger, readEntryBytes } from '@/lib/ledger';
import { uploadsHandedToThreads } from '@/lib/storage/offload';
import { SyncConflictError, SyncError } from './errors';
import { INGEST_THREAD_RECORDS, localTarget } from './local-target';
import { syncWorkspace } from './sync';
import { makeSandbox, steppingClock } from './testing/workspace';

const AGENT = '5f0c1d2e-3b4a-4c5d-8e6f-7a8b9c0d1e2f';
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0)) await fn();
});

/** The data directory's pending index entries, read beside the sync (a reader of its own would fold them). */
function pending(dataDir: string): number[] {
  const db = new Database(path.join(dataDir, 'lineage.db'), { readonly: true });
  try {
    return (db.prepare('SELECT seq FROM index_pending').all() as { seq: number }[]).map((r) => r.seq);
  } finally {
    db.close();
  }
}

async function untilFolded(dataDir: string): Promise<void> {
  for (const deadline = Date.now() + 60_000; pending(dataDir).length > 0;) {
    if (Date.now() > deadline) throw new Error('the background catch-up did not fold the entry within 60 s');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** What an error of the target says, to compare the thread's with the sync thread's. */
async function refusal(call: Promise<unknown>): Promise<{ type: string; code?: string; message: string; latest?: number | null }> {
  try {
    await call;
  } catch (error) {
    if (error instanceof SyncConflictError) return { type: 'conflict', message: error.message, latest: error.latestSequence };
    if (error instanceof SyncError) return { type: 'sync', code: error.code, message: error.message };
    throw error;
  }
  throw new Error('the upload was accepted');
}

it('uploads from the threshold up are ingested on the ingest thread: the same entries, whole blobs, pending folds, index and refusals as on the sync thread', async () => {
  const onThread = await makeSandbox();
  const here = await makeSandbox();
  cleanups.push(onThread.cleanup, here.cleanup);
  const twins = [
    { sb: onThread, target: localTarget(onThread.dataDir, steppingClock(), { ingestThreadFrom: 0 }) },
    { sb: here, target: localTarget(here.dataDir, steppingClock(), { ingestThreadFrom: Number.POSITIVE_INFINITY }) },
  ];
  for (const { sb } of twins) await sb.write('.alf-agent-id', `${AGENT}\n`);
  // 300 sections, every one changed by each sync: entries over BACKGROUND_INDEX_FROM, whose folds are left to a catch-up.
  const memory = (edit: number) => `# Memory\n\n${Array.from({ length: 300 }, (_, i) => `## Fact ${i}\nFact ${i} holds value ${edit}.\n`).join('\n')}`;
  for (const edit of [0, 1, 2]) {
    for (const { sb, target } of twins) {
      await sb.write('MEMORY.md', memory(edit));
      // The same bytes in both uploads: a raw file's zip entry carries its mtime.
      const at = new Date(Date.parse('2026-11-01T09:00:00Z') + edit * 3600_000);
      fs.utimesSync(path.join(sb.workspace, 'MEMORY.md'), at, at);
      const handed = uploadsHandedToThreads();
      const out = await syncWorkspace({ runtime: 'openclaw', workspace: sb.workspace, target, alfHome: sb.alfHome, clock: steppingClock() });
      expect(out.sequence).toBe(edit);
      // The first snapshot comes with its written form, its fold deferred: checked on the sync
      // thread as written, on either side (ingest.ts `written`); the deltas go to the thread.
      expect(uploadsHandedToThreads() - handed).toBe(sb === onThread && edit > 0 ? 1 : 0);
    }
  }
  for (const { sb } of twins) await untilFolded(sb.dataDir);

  const ledgers = twins.map(({ sb }) => openLedger(sb.dataDir));
  cleanups.unshift(async () => ledgers.forEach((l) => closeDatabase(l.db)));
  const entries = ledgers.map((ledger) => listEntries({ ledger, agentId: AGENT }).map((e) => ({ seq: e.seq, kind: e.kind, sha256: e.sha256 })));
  expect(entries[0]).toHaveLength(3);
  expect(entries[0]).toEqual(entries[1]);
  // Blobs stored whole, as the sync thread's deferred packing stores them.
  for (const { sb } of twins) expect((await fsp.readdir(path.join(sb.dataDir, 'blobs'))).filter((n) => n.endsWith('.packed'))).toEqual([]);
  const [threaded, inline] = ledgers.map((l) => dumpIndex(l));
  expect((threaded!.ledger_entries as { updates: number }[]).map((e) => e.updates)).toEqual([0, 300, 300]);
  expect(threaded).toEqual(inline);

  // Refusals travel back as the sync thread's: a stale base, and bytes that are no archive; nothing written.
  const delta1 = Buffer.from(await readEntryBytes({ ledger: ledgers[0]!, entry: listEntries({ ledger: ledgers[0]!, agentId: AGENT })[1]! }));
  const refusals = [];
  for (const { target } of twins) {
    const handed = uploadsHandedToThreads();
    refusals.push([await refusal(target.pushDelta(AGENT, 0, delta1)), await refusal(target.pushDelta(AGENT, 2, Buffer.from('not an archive')))]);
    expect(uploadsHandedToThreads() - handed).toBe(target === twins[0]!.target ? 2 : 0);
  }
  expect(refusals[0]![0]).toMatchObject({ type: 'conflict', latest: 2 });
  expect(refusals[0]![1]).toMatchObject({ type: 'sync', code: 'sync_upload_failed' });
  expect(refusals[0]).toEqual(refusals[1]);
  expect(ledgers.map((ledger) => listEntries({ ledger, agentId: AGENT }).length)).toEqual([3, 3]);
}, 120_000);

it('a first sync of a large store whose fold is not deferred (indexing inline) is ingested on the ingest thread, started once its snapshot is made and checked; a small delta after it stays on the sync thread', async () => {
  const sb = await makeSandbox();
  cleanups.push(sb.cleanup);
  const clock = steppingClock();
  const target = localTarget(sb.dataDir, clock, { indexing: 'inline' });
  const perFile = 100;
  const files = Math.ceil(INGEST_THREAD_RECORDS / perFile);
  const topic = (f: number, edit = 0) => `# Topic ${f}\n\n${Array.from({ length: perFile }, (_, i) => `## Fact ${f}.${i}\nFact ${i} of topic ${f} is ${f === 0 && i === 0 ? edit : 'steady'}.\n`).join('\n')}`;
  for (let f = 0; f < files; f++) await sb.write(`memory/semantic/topic-${f}.md`, topic(f));
  // Far under INGEST_THREAD_FROM: the archive's size alone would keep it on the sync thread.
  let handed = uploadsHandedToThreads();
  const ports = () => process.getActiveResourcesInfo().filter((kind) => kind === 'MessagePort').length;
  const portsBefore = ports();
  const first = await syncWorkspace({ runtime: 'openclaw', workspace: sb.workspace, target, alfHome: sb.alfHome, clock });
  expect(first).toMatchObject({ sequence: 0, delta: false });
  expect(uploadsHandedToThreads() - handed).toBe(1);
  // Its work done, the idle thread holds nothing that keeps a process alive (a `lineage sync` exits).
  expect(ports()).toBe(portsBefore);

  await sb.write('memory/semantic/topic-0.md', topic(0, 1));
  handed = uploadsHandedToThreads();
  const next = await syncWorkspace({ runtime: 'openclaw', workspace: sb.workspace, target, alfHome: sb.alfHome, clock });
  expect(next).toMatchObject({ sequence: 1, delta: true, changes: { updates: 1 } });
  expect(uploadsHandedToThreads() - handed).toBe(0);

  const ledger = openLedger(sb.dataDir);
  cleanups.unshift(async () => closeDatabase(ledger.db));
  const index = dumpIndex(ledger);
  expect((index.ledger_entries as { creates: number; updates: number }[]).map((e) => [e.creates, e.updates])).toEqual([[files * perFile, 0], [0, 1]]);
}, 120_000);
