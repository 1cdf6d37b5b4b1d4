/**
 * Migration 0006 turns an index written with moves as a create (with `moved_from`) plus a tombstone
 * into the index the indexer writes now: one `move` version, no tombstone, counts moved apart.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { HistoryGenerator } from './testing/generator';
import { writeMovesAsBefore0006 } from './testing/old-moves';
import { dumpIndex, tempLedger } from './testing/temp-ledger';
import { wordIndexProblems } from './testing/word-index-check';

const AGENT = '3f2d1c0b-2222-4a2b-8c3d-0000000000a6';
const { ledger, cleanup } = tempLedger();
afterAll(() => cleanup());

it('converts moves written as a create and a tombstone into one move version, and the counts', async () => {
  const gen = new HistoryGenerator(ledger, AGENT, 6);
  gen.register();
  for (let i = 0; i < 5; i++) gen.addRecord();
  await gen.sync(0);
  for (let turn = 1; turn <= 25; turn++) {
    gen.randomMutations();
    await gen.sync(turn);
  }
  const expected = dumpIndex(ledger);
  const moves = (expected.record_versions as { op: string }[]).filter((v) => v.op === 'move').length;
  expect(moves).toBeGreaterThan(0);
  writeMovesAsBefore0006(ledger.db.sqlite);
  expect(dumpIndex(ledger)).not.toEqual(expected);

  const file = path.resolve(process.cwd(), 'db/migrations/0006_moves_first_class.sql');
  const statements = fs.readFileSync(file, 'utf8').split('--> statement-breakpoint').map((s) => s.trim()).filter(Boolean);
  expect(statements[0]).toMatch(/^(--.*\n)*ALTER TABLE `ledger_entries` ADD `moves`/);
  ledger.db.sqlite.transaction(() => {
    for (const statement of statements.slice(1)) ledger.db.sqlite.exec(statement);
  })();
  expect(dumpIndex(ledger)).toEqual(expected);
  // The word index still holds exactly the searchable versions' tokens.
  expect(wordIndexProblems(ledger.db.sqlite)).toEqual([]);
});
