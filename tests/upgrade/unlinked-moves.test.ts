/**
 * `unlinkedMoves` (lib/history/unlinked-moves.ts), which `lineage doctor` reads: nothing in an index
 * this version writes (a generated history with moves between files, entry by entry and rebuilt), and
 * every move once the index holds them as a create and a tombstone, as indexes before 0006 did.
 */
import { afterAll, expect, it } from 'vitest';
import { HistoryGenerator } from '@/lib/history/testing/generator';
import { writeMovesAsBefore0006 } from '@/lib/history/testing/old-moves';
import { tempLedger } from '@/lib/history/testing/temp-ledger';
import { rebuildIndex } from '@/lib/history/rebuild';
import { unlinkedMoves } from '@/lib/history/unlinked-moves';

const AGENT = '3f2d1c0b-2222-4a2b-8c3d-0000000000b7';
const { ledger, cleanup } = tempLedger();
afterAll(() => cleanup());

it('finds no unlinked move in an index this version wrote, and each move an older index held as a delete and a create', async () => {
  const gen = new HistoryGenerator(ledger, AGENT, 11);
  gen.register();
  for (let i = 0; i < 6; i++) gen.addRecord();
  await gen.sync(0);
  for (let turn = 1; turn <= 25; turn++) {
    gen.randomMutations();
    await gen.sync(turn);
  }
  const sqlite = ledger.db.sqlite;
  const moves = sqlite.prepare(`SELECT agent_id, seq AS sequence, entry_kind AS kind, count(*) AS moves FROM record_versions
    WHERE op = 'move' GROUP BY agent_id, seq, entry_kind ORDER BY seq, entry_kind`).all();
  expect(moves.length).toBeGreaterThan(0);
  expect(unlinkedMoves(sqlite)).toEqual([]);

  writeMovesAsBefore0006(sqlite);
  expect(unlinkedMoves(sqlite)).toEqual(moves);

  await rebuildIndex({ ledger });
  expect(unlinkedMoves(sqlite)).toEqual([]);
}, 120_000);
