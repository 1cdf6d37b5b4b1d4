import fs from 'node:fs';
import path from 'node:path';
import { Command } from 'commander';
import { afterEach, expect, it, vi } from 'vitest';
import { HistoryGenerator } from '@/lib/history/testing/generator';
import { dumpIndex, tempLedger } from '@/lib/history/testing/temp-ledger';
import { FsBlobStore } from '@/lib/ledger/blob-store';
import { CliError } from '../output';
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

it('reports every damaged blob, not just the first, and leaves the index as it was', async () => {
  const { ledger, dir, cleanup } = tempLedger();
  try {
    const agent = '5a5a5a5a-3333-4a2b-8c3d-000000000002';
    const gen = new HistoryGenerator(ledger, agent, 4);
    gen.register();
    for (let turn = 0; turn < 5; turn++) {
      gen.randomMutations();
      await gen.sync(turn);
    }
    const before = dumpIndex(ledger);
    const entries = ledger.db.sqlite.prepare('SELECT seq, blob_key FROM ledger_entries ORDER BY seq').all() as { seq: number; blob_key: string }[];
    // At rest each delta is packed against the blob before it: damaging sequence 2 makes 3 and 4
    // unreadable too (their base is gone), and the rebuild must name all of them.
    const store = new FsBlobStore(path.join(dir, 'blobs'));
    const file = (key: string) => store.fileOf(key)!;
    const damaged = fs.readFileSync(file(entries[2]!.blob_key));
    damaged[damaged.length >> 1] = damaged[damaged.length >> 1]! ^ 0xff;
    fs.writeFileSync(file(entries[2]!.blob_key), damaged);
    fs.rmSync(file(entries[4]!.blob_key));
    vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    const program = new Command().exitOverride();
    registerIndexCommand(program);
    const failure = await program.parseAsync(['node', 'lineage', 'index', '--rebuild', '--data', dir]).then(() => null, (e: unknown) => e);
    expect(failure).toBeInstanceOf(CliError);
    expect((failure as CliError).code).toBe('blob_corrupt');
    const message = (failure as CliError).message;
    expect(message).toMatch(/^3 ledger blob\(s\) are missing or damaged/);
    for (const seq of [2, 3, 4]) expect(message).toContain(`agent ${agent} sequence ${entries[seq]!.seq}`);
    expect(message).not.toContain(`agent ${agent} sequence ${entries[1]!.seq}`);
    expect(dumpIndex(ledger)).toEqual(before);
    expect(fs.existsSync(path.join(dir, 'rebuilding.pid'))).toBe(false);
  } finally {
    cleanup();
  }
});
