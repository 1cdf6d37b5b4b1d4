/**
 * The word index's upkeep outside the indexer's inserts: the one-time fill migration 0015 asks for,
 * the delete trigger, and the guard against updates SQL could not index.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeDatabase } from '@/db/client';
import { openLedger, type Ledger } from '@/lib/ledger';
import { HistoryGenerator } from '../testing/generator';
import { tempLedger } from '../testing/temp-ledger';
import { wordIndexProblems } from '../testing/word-index-check';
import { fillWordIndex, wordIndexPending } from './word-index';

const AGENT = '3f2d1c0b-4444-4a2b-8c3d-0000000000a1';
let ledger: Ledger;
let dir: string;
let cleanup: () => void;

beforeAll(async () => {
  ({ ledger, dir, cleanup } = tempLedger());
  const gen = new HistoryGenerator(ledger, AGENT, 11);
  gen.register();
  for (let i = 0; i < 6; i++) gen.addRecord();
  await gen.sync(0);
  for (let turn = 1; turn <= 8; turn++) {
    gen.randomMutations();
    await gen.sync(turn);
  }
});
afterAll(() => cleanup?.());

describe('the word index', () => {
  it('is filled on open from the id the marker names, once, as the indexer writes it', () => {
    const { sqlite } = ledger.db;
    expect(wordIndexProblems(sqlite)).toEqual([]);
    const versions = sqlite.prepare("SELECT id FROM record_versions WHERE op <> 'delete' ORDER BY id").pluck().all() as number[];
    const cut = versions[Math.floor(versions.length / 2)]!;
    // As if the versions from `cut` on had been written before migration 0015.
    sqlite.prepare('DELETE FROM record_versions_words WHERE rowid >= ?').run(cut);
    sqlite.exec(`CREATE TABLE search_words_backfill (from_id integer NOT NULL); INSERT INTO search_words_backfill VALUES (${cut})`);
    expect(wordIndexProblems(sqlite)).not.toEqual([]);
    expect(wordIndexPending(sqlite)).toBe(true);
    closeDatabase(ledger.db);
    ledger = openLedger(dir);
    expect(wordIndexPending(ledger.db.sqlite)).toBe(false);
    expect(wordIndexProblems(ledger.db.sqlite)).toEqual([]);
    fillWordIndex(ledger.db.sqlite); // nothing left to do
    expect(wordIndexProblems(ledger.db.sqlite)).toEqual([]);
  });

  it('refuses an update SQL could not index, and lets an op change that keeps the row', () => {
    const { sqlite } = ledger.db;
    const id = sqlite.prepare("SELECT id FROM record_versions WHERE op = 'create' LIMIT 1").pluck().get() as number;
    expect(() => sqlite.prepare("UPDATE record_versions SET content = 'other' WHERE id = ?").run(id)).toThrow(/written once/);
    expect(() => sqlite.prepare("UPDATE record_versions SET op = 'delete' WHERE id = ?").run(id)).toThrow(/written once/);
    sqlite.prepare("UPDATE record_versions SET op = 'update' WHERE id = ?").run(id);
    sqlite.prepare("UPDATE record_versions SET op = 'create' WHERE id = ?").run(id);
    expect(wordIndexProblems(sqlite)).toEqual([]);
  });

  it("loses a version's row with the version", () => {
    const { sqlite } = ledger.db;
    sqlite.exec("DELETE FROM record_versions WHERE id IN (SELECT id FROM record_versions ORDER BY id DESC LIMIT 5)");
    expect(wordIndexProblems(sqlite)).toEqual([]);
  });
});
