/**
 * Migration 0019 (SQLite) and pg 0007 (PostgreSQL): the deleted-agents record added to a database
 * made before it. Each is undone on a migrated database holding an agent (its tables dropped, its
 * journal row removed), the database opened again: the tables are back, the agent untouched, and
 * deleting it records the deletion and the blob keys it removes, on both backends alike.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { expect, it } from 'vitest';
import { closeDatabase } from '@/db/client';
import { migratePg, openPgDatabase } from '@/db/pg/client';
import { deleteAgent, getAgent, listDeletedAgents, openLedger, registerAgent } from '@/lib/ledger';
import { FsBlobStore } from '@/lib/ledger/blob-store';
import { tempLedger } from '@/lib/history/testing/temp-ledger';
import { ingestSnapshot } from '@/lib/storage/embedded-ingest';
import * as pgAgents from '@/lib/storage/pg/agents';
import { deleteAgent as pgDeleteAgent, listDeletedAgents as pgListDeletedAgents } from '@/lib/storage/pg/delete-agent';
import { freshDatabase } from '@/tests/engines/use-engines';
import { snapshotBytes } from '@/tests/server/archives';

const AGENT = '7b0f3c2e-7777-4a2b-8c3d-0000000000e1';
const TENANT = 'tenant-key-id';
const NOW = new Date('2026-12-06T12:00:00.000Z');

function journalWhen(folder: string, tag: string): number {
  const journal = JSON.parse(fs.readFileSync(path.resolve(__dirname, folder, 'meta/_journal.json'), 'utf8')) as { entries: { tag: string; when: number }[] };
  const entry = journal.entries.find((e) => e.tag === tag);
  if (!entry) throw new Error(`no migration ${tag}`);
  return entry.when;
}

it('SQLite 0019: a data directory from before gets the tables; a delete then records itself', async () => {
  const t = tempLedger();
  try {
    registerAgent({ ledger: t.ledger, id: AGENT, name: 'kept', sourceRuntime: 'openclaw', tenantId: TENANT, now: NOW });
    await ingestSnapshot({ ledger: t.ledger, agentId: AGENT, bytes: await snapshotBytes(AGENT), now: NOW });
    closeDatabase(t.ledger.db);
    const raw = new Database(path.join(t.dir, 'lineage.db'));
    // 0020 and 0021 undone too: the migrator applies only the migrations after the last one applied.
    raw.exec(`DROP TABLE ended_sessions; ALTER TABLE ledger_entries DROP COLUMN manifest_created_at; DROP TABLE deleted_agent_blobs; DROP TABLE deleted_agents;
      DELETE FROM __drizzle_migrations WHERE created_at >= ${journalWhen('migrations', '0019_deleted_agents')};`);
    raw.close();

    const ledger = openLedger(t.dir);
    t.ledger.db = ledger.db;
    expect(getAgent({ ledger, agentId: AGENT })).toMatchObject({ name: 'kept', tenant_id: TENANT, latest_sequence: 0 });
    expect(listDeletedAgents({ ledger })).toEqual([]);
    const [key] = ledger.db.sqlite.prepare('SELECT blob_key FROM ledger_entries').pluck().all() as string[];
    await deleteAgent({ ledger, agentId: AGENT, now: NOW });
    expect(listDeletedAgents({ ledger })).toEqual([{ id: AGENT, tenant_id: TENANT, name: 'kept', deleted_at: NOW.toISOString(), blob_keys: [key] }]);
    expect(ledger.db.sqlite.pragma('foreign_key_check')).toEqual([]);
  } finally {
    t.cleanup();
  }
});

it('PostgreSQL 0007: a database from before gets the tables; a delete then records itself', async () => {
  const url = await freshDatabase();
  await migratePg(url);
  let db = await openPgDatabase(url);
  const blobsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lineage-pg-deleted-'));
  try {
    await pgAgents.registerAgent(db.pool, { id: AGENT, name: 'kept', sourceRuntime: 'openclaw', tenantId: TENANT, now: NOW });
    // 0008 and 0009 undone too: the migrator applies only the migrations after the last one applied.
    await db.pool.query(`DROP TABLE ended_sessions; ALTER TABLE ledger_entries DROP COLUMN manifest_created_at; DROP TABLE deleted_agent_blobs; DROP TABLE deleted_agents;
      DELETE FROM drizzle.__drizzle_migrations WHERE created_at >= ${journalWhen('pg/migrations', '0007_deleted_agents')}`);
    await db.close();
    db = await openPgDatabase(url);
    expect(await pgAgents.getAgent(db.pool, { agentId: AGENT })).toMatchObject({ name: 'kept', tenant_id: TENANT });
    expect(await pgListDeletedAgents(db.pool)).toEqual([]);
    await pgDeleteAgent(db.pool, new FsBlobStore(blobsDir), { agentId: AGENT, now: NOW });
    expect(await pgListDeletedAgents(db.pool)).toEqual([{ id: AGENT, tenant_id: TENANT, name: 'kept', deleted_at: NOW.toISOString(), blob_keys: [] }]);
  } finally {
    await db.close();
    fs.rmSync(blobsDir, { recursive: true, force: true });
  }
});
