import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeDatabase } from '@/db/client';
import { openLedger, type Ledger } from '@/lib/ledger';
import { HistoryGenerator } from '@/lib/history/testing/generator';
import { writeMovesAsBefore0006 } from '@/lib/history/testing/old-moves';
import { dumpIndex, tempLedger } from '@/lib/history/testing/temp-ledger';
import { wordIndexProblems } from '@/lib/history/testing/word-index-check';
import { getAgentMemoryDto, getRecordLineage, getRecordsAt, searchFirstAppearance } from '@/lib/history/queries';

const AGENT = '3f2d1c0b-4444-4a2b-8c3d-000000000001';

let ledger: Ledger;
let dir: string;
let cleanup: () => void;

/** The `when` drizzle records for the migration `tag` (the migrator applies those later than the last applied). */
function journalWhen(tag: string): number {
  const journal = JSON.parse(fs.readFileSync(path.resolve(__dirname, 'migrations/meta/_journal.json'), 'utf8')) as
    { entries: { tag: string; when: number }[] };
  const entry = journal.entries.find((e) => e.tag === tag);
  if (!entry) throw new Error(`no migration ${tag}`);
  return entry.when;
}

/** Every answer that reads a record's current fields. */
function answers(l: Ledger): unknown {
  const db = l.db;
  const ids = db.sqlite.prepare('SELECT record_id FROM records ORDER BY record_id').pluck().all() as string[];
  return {
    memory: getAgentMemoryDto({ db, agentId: AGENT }),
    live: getRecordsAt({ db, agentId: AGENT, limit: 1000 }),
    lineages: ids.map((recordId) => getRecordLineage({ db, agentId: AGENT, recordId })),
  };
}

beforeAll(async () => {
  ({ ledger, dir, cleanup } = tempLedger());
  const gen = new HistoryGenerator(ledger, AGENT, 7);
  gen.register();
  for (let i = 0; i < 8; i++) gen.addRecord();
  await gen.sync(0);
  for (let turn = 1; turn <= 25; turn++) {
    gen.randomMutations();
    if (turn === 8) gen.moveRecord(gen.records[0]!.id, 'memory/archive/old.md');
    if (turn === 12) gen.deleteRecord();
    await gen.sync(turn, { rollover: turn === 15 });
  }
});

afterAll(() => cleanup?.());

describe('migrations 0002 (records keep no copy of their latest version), 0003 (raw object lengths indexed), 0004 (full-text rows written by the indexer), 0005 (no full-text rows for tombstones), 0006 (moves first-class), 0013 (live-facet counters), 0014 (per-day activity kept by triggers), 0015 (the word index, filled on open), 0016 (facet changes per sequence)', () => {
  it('converts a data directory with the old records table, and every answer stays the same', () => {
    const before = answers(ledger);
    const dumpBefore = dumpIndex(ledger);
    const searchBefore = searchFirstAppearance({ db: ledger.db, q: 'note' });
    expect(searchBefore.total).toBeGreaterThan(0);
    expect(dumpBefore.records!.some((r) => (r as { deleted_seq: number | null }).deleted_seq !== null)).toBe(true);
    closeDatabase(ledger.db);

    // Put the database back as migration 0001 left it: the old records table, filled as the old
    // indexer filled it (the fields of each record's latest version), later migrations undone.
    const raw = new Database(`${dir}/lineage.db`);
    raw.exec(`
      DROP TABLE ended_sessions; -- 0021 undone first
      ALTER TABLE ledger_entries DROP COLUMN manifest_created_at; -- then 0020
      DROP TABLE deleted_agent_blobs; -- then 0019
      DROP TABLE deleted_agents;
      DROP TABLE index_pending; -- then 0018
      DROP INDEX record_versions_state_idx; -- then 0017
      DROP TABLE record_facet_changes; -- then 0016: the replay fills it from the versions
      DROP TRIGGER record_versions_words_ad; -- then 0015: the trigram index back as 0005 made it
      DROP TRIGGER record_versions_words_au;
      DROP TABLE record_versions_words;
      DROP INDEX record_versions_hits_idx;
      CREATE VIRTUAL TABLE record_versions_fts USING fts5(content, content='record_versions_searchable', content_rowid='id', tokenize='trigram');
      INSERT INTO record_versions_fts(record_versions_fts) VALUES ('rebuild');
      CREATE TRIGGER record_versions_fts_ad AFTER DELETE ON record_versions WHEN old.op <> 'delete' BEGIN
        INSERT INTO record_versions_fts(record_versions_fts, rowid, content) VALUES ('delete', old.id, old.content);
      END;
      CREATE TRIGGER record_versions_fts_au AFTER UPDATE OF content, op ON record_versions BEGIN
        INSERT INTO record_versions_fts(record_versions_fts, rowid, content) SELECT 'delete', old.id, old.content WHERE old.op <> 'delete';
        INSERT INTO record_versions_fts(rowid, content) SELECT new.id, new.content WHERE new.op <> 'delete';
      END;
      DROP TRIGGER ledger_entries_activity_ai; -- then 0014 (its triggers read the columns 0006 adds)
      DROP TRIGGER ledger_entries_activity_au;
      DROP TRIGGER ledger_entries_activity_ad;
      DROP TABLE agent_day_activity;
      DROP INDEX records_agent_changed_idx;
      DROP TABLE record_facets; -- then 0013 (its index covers the moves column 0006 added)
      DROP INDEX record_versions_seq_file_idx;
      DROP INDEX ledger_entries_agent_time_idx;
      CREATE INDEX ledger_entries_agent_time_idx ON ledger_entries (agent_id, created_at);`);
    writeMovesAsBefore0006(raw, { dropColumn: true }); // 0006 undone too (it runs again below)
    raw.exec(`
      CREATE TABLE old_records (agent_id text NOT NULL, record_id text NOT NULL, first_seq integer NOT NULL,
        last_seq integer NOT NULL, deleted_seq integer, content text NOT NULL, memory_type text NOT NULL,
        namespace text NOT NULL, status text NOT NULL, origin_file text, heading text, tags text NOT NULL,
        record_json text NOT NULL, born_at text NOT NULL, last_changed_at text NOT NULL,
        PRIMARY KEY(agent_id, record_id), FOREIGN KEY (agent_id) REFERENCES agents(id) ON UPDATE no action ON DELETE cascade);
      INSERT INTO old_records SELECT r.agent_id, r.record_id, r.first_seq, r.last_seq, r.deleted_seq, v.content, v.memory_type,
        v.namespace, v.status, v.origin_file, v.heading, v.tags, v.record_json, r.born_at, r.last_changed_at
        FROM records r JOIN record_versions v ON v.id = (SELECT w.id FROM record_versions w
          WHERE w.agent_id = r.agent_id AND w.record_id = r.record_id ORDER BY w.seq DESC, w.entry_kind DESC LIMIT 1);
      DROP TABLE records;
      ALTER TABLE old_records RENAME TO records;
      CREATE INDEX records_agent_live_idx ON records (agent_id, deleted_seq);
      DROP INDEX raw_objects_length_idx;
      DROP INDEX raw_file_versions_reconstructed_idx;
      ALTER TABLE raw_file_versions DROP COLUMN reconstructed;
      DROP INDEX record_versions_seq_op_idx; -- 0012 undone too
      DROP INDEX record_versions_file_order_idx;
      DROP INDEX record_versions_heading_order_idx;
      DROP TRIGGER record_versions_fts_ad;
      DROP TRIGGER record_versions_fts_au;
      DROP TABLE record_versions_fts;
      DROP VIEW record_versions_searchable;
      ${fs.readFileSync(path.resolve(__dirname, 'migrations/0001_fts.sql'), 'utf8')}
      INSERT INTO record_versions_fts(record_versions_fts) VALUES ('rebuild');
      ALTER TABLE api_keys DROP COLUMN admin; -- 0008 undone too: the migrator re-runs everything after 0001
      DELETE FROM __drizzle_migrations WHERE created_at >= ${journalWhen('0002_records_current_from_versions')};`);
    expect((raw.prepare('PRAGMA table_info(records)').all() as unknown[]).length).toBe(15);
    // 0001's full-text index held a row for every version, tombstones included.
    const tombstones = raw.prepare("SELECT count(*) FROM record_versions WHERE op = 'delete'").pluck().get() as number;
    expect(tombstones).toBeGreaterThan(0);
    raw.exec("INSERT INTO record_versions_fts(record_versions_fts, rank) VALUES ('integrity-check', 1)");
    raw.close();

    const migrated = openLedger(dir);
    expect((migrated.db.sqlite.prepare('PRAGMA table_info(records)').all() as { name: string }[]).map((c) => c.name))
      .toEqual(['agent_id', 'record_id', 'first_seq', 'last_seq', 'deleted_seq', 'born_at', 'last_changed_at']);
    expect(migrated.db.sqlite.prepare("SELECT count(*) FROM sqlite_master WHERE name = 'raw_objects_length_idx'").pluck().get()).toBe(1);
    // 0020: the entries' manifest created_at is only in their blobs: NULL (the superseded-base rule reads the blob then).
    expect(dumpBefore.ledger_entries!.every((e) => typeof (e as { manifest_created_at: unknown }).manifest_created_at === 'string')).toBe(true);
    expect(dumpIndex(migrated)).toEqual({ ...dumpBefore, ledger_entries: dumpBefore.ledger_entries!.map((e) => ({ ...(e as object), manifest_created_at: null })) });
    expect(answers(migrated)).toEqual(before);
    expect(migrated.db.sqlite.pragma('foreign_key_check')).toEqual([]);
    // 0004: no insert trigger; the next ingest writes its versions' full-text rows itself.
    const triggers = () => migrated.db.sqlite.prepare("SELECT name FROM sqlite_master WHERE type = 'trigger' ORDER BY name").pluck().all();
    expect(triggers()).toEqual(['ledger_entries_activity_ad', 'ledger_entries_activity_ai', 'ledger_entries_activity_au', 'record_versions_words_ad', 'record_versions_words_au']);
    // 0005 and 0015: the word index, filled when the database was opened, holds exactly the tokens
    // of the versions that are not tombstones, the trigram index is gone, and search answers as before.
    const { sqlite } = migrated.db;
    expect(wordIndexProblems(sqlite)).toEqual([]);
    expect(sqlite.prepare("SELECT name FROM sqlite_master WHERE name IN ('record_versions_fts', 'search_words_backfill')").all()).toEqual([]);
    const left = sqlite.prepare("SELECT count(*) FROM record_versions WHERE op = 'delete'").pluck().get() as number;
    expect(left).toBeGreaterThan(0);
    expect(left).toBeLessThan(tombstones); // 0006: a move's tombstone is gone with the move
    expect(sqlite.prepare('SELECT count(*) FROM record_versions_searchable').pluck().get())
      .toBe((sqlite.prepare('SELECT count(*) FROM record_versions').pluck().get() as number) - left);
    expect(searchFirstAppearance({ db: migrated.db, q: 'note' })).toEqual(searchBefore);
    closeDatabase(migrated.db);
  });
});
