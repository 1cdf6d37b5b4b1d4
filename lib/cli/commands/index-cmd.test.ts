import { Command } from 'commander';
import { afterEach, expect, it, vi } from 'vitest';
import { HistoryGenerator } from '@/lib/history/testing/generator';
import { dumpIndex, tempLedger } from '@/lib/history/testing/temp-ledger';
import { registerIndexCommand } from './index-cmd';

afterEach(() => vi.restoreAllMocks());

it('rebuilds the index from the ledger and prints one JSON object', async () => {
  const { ledger, dir, cleanup } = tempLedger();
  try {
    const gen = new HistoryGenerator(ledger, '5a5a5a5a-3333-4a2b-8c3d-000000000001', 3);
    gen.register();
    for (let turn = 0; turn < 6; turn++) {
      gen.randomMutations();
      await gen.sync(turn);
    }
    const before = dumpIndex(ledger);
    const out: string[] = [];
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => { out.push(String(chunk)); return true; });
    vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    const program = new Command().exitOverride();
    registerIndexCommand(program);
    await program.parseAsync(['node', 'lineage', 'index', '--rebuild', '--data', dir]);
    expect(out).toHaveLength(1);
    expect(JSON.parse(out[0]!)).toEqual({ ok: true, entries: gen.turns.length, record_versions: before.record_versions!.length });
    expect(dumpIndex(ledger)).toEqual(before);
  } finally {
    cleanup();
  }
});
