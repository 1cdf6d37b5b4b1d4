/**
 * `lineage doctor` on a data directory lists the entries a local sync left for the history index to
 * fold later (not a problem: `ok` stays true), and `--repair` folds them: the index is then the one
 * the same history gets indexed entry by entry.
 */
import { afterEach, expect, it } from 'vitest';
import { HistoryGenerator } from '@/lib/history/testing/generator';
import { dumpIndex, tempLedger } from '@/lib/history/testing/temp-ledger';
import { runCli } from './run-cli';

const AGENT = '7b0f3c2e-5555-4a2b-8c3d-0000000000a1';
const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

function ledgerWith(deferIndexFrom: number | undefined) {
  const t = tempLedger();
  cleanups.push(t.cleanup);
  const gen = new HistoryGenerator(t.ledger, AGENT, 21);
  gen.deferIndexFrom = deferIndexFrom;
  gen.register();
  return { ...t, gen };
}

it('lists the entries not yet folded into the history index, and --repair folds them', async () => {
  const deferred = ledgerWith(1);
  const inline = ledgerWith(undefined);
  for (let turn = 0; turn < 4; turn++) {
    for (const t of [deferred, inline]) {
      t.gen.randomMutations();
      await t.gen.sync(turn);
    }
  }
  // Each ingest folded the entry before it: the last one waits.
  const last = deferred.gen.turns.at(-1)!;
  const plain = await runCli(['doctor', '--data', deferred.dir]);
  expect(plain.code).toBe(0);
  expect(plain.json).toMatchObject({ ok: true, index_pending: [{ agent_id: AGENT, sequence: last.seq, kind: last.kind }] });
  expect(plain.json).not.toHaveProperty('index_folded');
  expect(plain.stderr).toContain(`not yet in the history index: agent ${AGENT} sequence ${last.seq}`);
  expect(dumpIndex(deferred.ledger)).not.toEqual(dumpIndex(inline.ledger));

  const repair = await runCli(['doctor', '--repair', '--data', deferred.dir]);
  expect(repair.json).toMatchObject({ ok: true, index_pending: [], index_folded: 1 });
  expect(dumpIndex(deferred.ledger)).toEqual(dumpIndex(inline.ledger));
  const again = await runCli(['doctor', '--data', deferred.dir]);
  expect(again.json).toMatchObject({ ok: true, index_pending: [] });
}, 120_000);
