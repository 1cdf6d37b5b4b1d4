/**
 * Test helper: histories synced through the real client pipeline (workspace → export → reconcile →
 * delta → a local ledger), taken out of that ledger as uploads, so the conformance suite and the
 * scale-out serving test can ingest exactly the same bytes at the same times into any backend:
 * the hand-built compare and blame histories, a ZeroClaw agent (its rows in a shared brain.db) and
 * a Hermes agent (sessions in state.db, curated memories in files), each changing across syncs.
 */
import path from 'node:path';
import Database from 'better-sqlite3';
import { insert, seedStateDb, writeFiles } from '@/lib/adapters/hermes/test-support';
import { insertSeedRow, seedBrainDb, type SeedRow } from '@/lib/adapters/zeroclaw/test-support';
import { compareHistory } from '@/lib/history/testing/compare-history';
import { buildBlameHistory } from '@/lib/history/testing/blame-history';
import { localTarget } from '@/lib/sync/local-target';
import { syncWorkspace } from '@/lib/sync/sync';
import { makeSandbox, steppingClock } from '@/lib/sync/testing/workspace';
import { openEmbeddedStorage } from '../embedded';
import type { LineageStorage } from '../types';
import type { Upload } from './scenario';

export interface SyncedHistory {
  agentId: string;
  name: string;
  runtime: string;
  uploads: Upload[];
}

/** The agent's ledger entries in a storage as uploads (bytes read back and checked), each at its sync time. */
export async function uploadsFrom(storage: LineageStorage, agentId: string): Promise<SyncedHistory> {
  const agent = (await storage.getAgent({ agentId }))!;
  const uploads: Upload[] = [];
  for (const entry of await storage.listEntries({ agentId })) {
    uploads.push({ agentId, kind: entry.kind, baseSequence: Math.max(0, entry.seq - 1), bytes: await storage.readEntryBytes({ entry }), now: new Date(entry.created_at) });
  }
  return { agentId, name: agent.name, runtime: agent.source_runtime ?? 'openclaw', uploads };
}

/** The same from a data directory nothing else holds open (its database is closed after). */
export async function uploadsOf(dataDir: string, agentId: string): Promise<SyncedHistory> {
  const storage = openEmbeddedStorage(dataDir);
  try {
    return await uploadsFrom(storage, agentId);
  } finally {
    await storage.close();
  }
}

/** A history built in a sandbox, taken out as uploads; the sandbox removed. */
async function taken(history: { dataDir: string; agentId: string; cleanup: () => Promise<void> }): Promise<SyncedHistory> {
  try {
    return await uploadsOf(history.dataDir, history.agentId);
  } finally {
    await history.cleanup();
  }
}

/** lib/history/testing/compare-history.ts: every kind of net change between #1 and #3 (latest #4). */
export const compareUploads = async () => taken(await compareHistory());

/** lib/history/testing/blame-history.ts: an edit, a section added above another, a file archived (a move), an edit after it. */
export const blameUploads = async () => taken(await buildBlameHistory());

const SCOUT = '5c0d7000-0000-4000-8000-000000000001';
const OTHER = '5c0d7000-0000-4000-8000-000000000002';
/** Longer than a row carries (400 characters), with characters outside the BMP (two UTF-16 units, one character). */
export const LONG_CONTENT = `Runbook 🚀: ${'the gateway rolls one zone at a time 🌍 — '.repeat(14)}end`;
const at = (day: number) => `2026-05-${String(day).padStart(2, '0')}T10:00:00Z`;
const row = (n: number, key: string, content: string, category = 'core', agent = SCOUT): SeedRow => ({
  id: `10000000-0000-4000-8000-${String(n).padStart(12, '0')}`, key, content, category, agent_id: agent, created_at: at(1), updated_at: at(1),
});

/**
 * A ZeroClaw agent ("scout") sharing brain.db with another: #0 seven rows; #1 one edited, one
 * deleted, one added (the long one), the other agent's row changed; #2 a category changed, a row deleted.
 */
export async function zeroclawUploads(): Promise<SyncedHistory> {
  const sb = await makeSandbox('lineage-zc-conf-');
  const clock = steppingClock();
  const target = localTarget(sb.dataDir, clock);
  const rows = [
    row(1, 'gateway', 'The gateway is 10.20.0.5'), row(2, 'editor', 'Prefers vim keybindings', 'daily'),
    row(3, 'deploys', 'Never deploy on Fridays'), row(4, 'pager', 'Pager rotation starts Monday', 'conversation'),
    row(5, 'dns', 'Internal DNS is 10.20.0.2'), row(6, 'backup', 'Backups run at 02:00 UTC', 'daily'),
    row(7, 'lunch', 'Lunch at noon'), row(20, 'secret', 'The other agent’s plan', 'core', OTHER),
  ];
  await seedBrainDb({ workspace: sb.workspace, agents: [{ id: SCOUT, alias: 'scout', created_at: at(1) }, { id: OTHER, alias: 'other', created_at: at(1) }], rows });
  const sync = () => syncWorkspace({ runtime: 'zeroclaw', workspace: sb.workspace, runtimeAgent: 'scout', target, alfHome: sb.alfHome, clock });
  const edit = async (change: (db: Database.Database) => void) => {
    const db = new Database(path.join(sb.workspace, 'memory', 'brain.db'));
    change(db);
    db.close();
    await sync();
  };
  const agentId = (await sync()).agent.alf_agent_id;
  await edit((db) => {
    db.prepare(`UPDATE memories SET content = 'The gateway is 10.20.0.9', updated_at = '${at(8)}' WHERE key = 'gateway'`).run();
    db.prepare("DELETE FROM memories WHERE key = 'editor'").run();
    insertSeedRow(db, { ...row(8, 'runbook', LONG_CONTENT), created_at: at(8), updated_at: at(8) });
    db.prepare(`UPDATE memories SET content = 'Changed elsewhere' WHERE agent_id = '${OTHER}'`).run();
  });
  await edit((db) => {
    db.prepare(`UPDATE memories SET category = 'daily', updated_at = '${at(9)}' WHERE key = 'pager'`).run();
    db.prepare("DELETE FROM memories WHERE key = 'lunch'").run();
  });
  return taken({ dataDir: sb.dataDir, agentId, cleanup: sb.cleanup });
}

const session = (id: string, source: string, startedAt: number) => ({ id, source, title: `Session ${id}`, started_at: startedAt, ended_at: startedAt + 600 });
const message = (sessionId: string, content: string, timestamp: number) => ({ session_id: sessionId, role: 'user', content, timestamp });

/**
 * A Hermes agent: #0 four sessions (one with a long transcript) and curated memories in
 * memories/MEMORY.md (rows of no database); #1 a session added, one continued, MEMORY.md edited;
 * #2 another session added.
 */
export async function hermesUploads(): Promise<SyncedHistory> {
  const sb = await makeSandbox('lineage-hermes-conf-');
  const clock = steppingClock();
  const target = localTarget(sb.dataDir, clock);
  const t0 = 1_780_000_000;
  await seedStateDb(sb.workspace,
    [session('sess-a', 'cli', t0), session('sess-b', 'telegram', t0 + 1000), session('sess-c', 'cli', t0 + 2000), session('sess-d', 'discord', t0 + 3000)],
    [message('sess-a', 'Review the deploy', t0 + 10), message('sess-b', LONG_CONTENT, t0 + 1010), message('sess-c', 'Rotate the keys', t0 + 2010),
      message('sess-d', 'Plan the offsite', t0 + 3010)]);
  await writeFiles(sb.workspace, { 'memories/MEMORY.md': 'Always run tests first.\n§\nThe gateway is 10.20.0.5.\n', 'memories/USER.md': 'Name: Dana\n', 'SOUL.md': 'Be brief.\n' });
  const sync = () => syncWorkspace({ runtime: 'hermes', workspace: sb.workspace, target, alfHome: sb.alfHome, clock });
  const edit = async (change: (db: Database.Database) => void) => {
    const db = new Database(path.join(sb.workspace, 'state.db'));
    change(db);
    db.close();
  };
  const agentId = (await sync()).agent.alf_agent_id;
  await edit((db) => {
    insert(db, 'sessions', session('sess-e', 'telegram', t0 + 5000));
    insert(db, 'messages', message('sess-e', 'A brand new question', t0 + 5010));
    insert(db, 'messages', message('sess-a', 'And the rollback plan', t0 + 20));
  });
  await writeFiles(sb.workspace, { 'memories/MEMORY.md': 'Always run tests first.\n§\nThe gateway is 10.20.0.9.\n' });
  await sync();
  await edit((db) => {
    insert(db, 'sessions', session('sess-f', 'cli', t0 + 6000));
    insert(db, 'messages', message('sess-f', 'Close the quarter', t0 + 6010));
  });
  await sync();
  return taken({ dataDir: sb.dataDir, agentId, cleanup: sb.cleanup });
}
