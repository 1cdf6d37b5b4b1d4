/**
 * A server that cannot take an upload now answers 503 with a Retry-After (lib/server/errors.ts: its
 * database's write lock held by another process, an index rebuild, PostgreSQL or the bucket out of
 * reach). The sync says so with a hint to run it again after that delay, leaves this machine's base
 * where it was, and the same sync run again goes through as if the refused one had never run.
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, expect, it } from 'vitest';
import { listEntries, openLedger } from '@/lib/ledger';
import { startTestServer } from '@/tests/server/harness';
import { SyncError } from './errors';
import { httpTarget } from './http-target';
import { syncWorkspace } from './sync';
import { makeSandbox, steppingClock } from './testing/workspace';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0)) await fn();
});

it('a 503 busy: the hint says to sync again after the Retry-After, nothing moved, and the sync run again goes through', async () => {
  const server = await startTestServer();
  cleanups.push(server.close);
  const sb = await makeSandbox();
  cleanups.push(sb.cleanup);
  const clock = steppingClock();
  const sync = () => syncWorkspace({ runtime: 'openclaw', workspace: sb.workspace, target: httpTarget({ baseUrl: server.url, apiKey: server.keyA }), alfHome: path.join(sb.alfHome, '.alf'), clock });
  await sb.write('MEMORY.md', '# Memory\n\n## Owner\nDana owns billing.\n');
  expect(await sync()).toMatchObject({ sequence: 0 });
  const agentId = fs.readFileSync(path.join(sb.workspace, '.alf-agent-id'), 'utf8').trim();
  // The state's sequence and the index naming its base (the log may hold the refused sync's lines as dead bytes).
  const stateDir = path.join(sb.alfHome, '.alf', 'state');
  const base = () => [`${agentId}.toml`, `${agentId}-state.idx`].map((f) => fs.readFileSync(path.join(stateDir, f)).toString('base64'));
  const before = base();
  await sb.write('memory/2026-11-02.md', '## Standup\nshipped\n');

  // Another process holds the server's database for a write (an index rebuild would).
  const holder = new Database(path.join(server.dataDir, 'lineage.db'), { timeout: 60_000 });
  let error: unknown;
  try {
    holder.exec('BEGIN IMMEDIATE');
    error = await sync().then(() => null, (e: unknown) => e);
  } finally {
    if (holder.inTransaction) holder.exec('ROLLBACK');
    holder.close();
  }
  expect(error).toBeInstanceOf(SyncError);
  expect(error).toMatchObject({
    code: 'sync_upload_failed',
    message: expect.stringMatching(/^upload delta failed \(HTTP 503\): another process holds the write lock of the database/),
    retryAfterSeconds: 5,
    hint: 'the server is busy: run the same sync again in 5 s or later (the server\'s Retry-After); this machine\'s state is as it was, and an upload the server did keep is recognised at the next sync, not sent twice',
  });
  expect(base()).toEqual(before);
  expect(listEntries({ ledger: openLedger(server.dataDir), agentId }).map((e) => e.seq)).toEqual([0]);

  expect(await sync()).toMatchObject({ sequence: 1, changes: { creates: 1, updates: 0, deletes: 0 } });
});
