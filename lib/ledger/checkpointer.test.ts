import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { HistoryGenerator } from '@/lib/history/testing/generator';
import { tempLedger } from '@/lib/history/testing/temp-ledger';
import { startCheckpointer, type Checkpointer } from './checkpointer';

const AGENT = '7b0f3c2e-1111-4a2b-8c3d-0000000000c1';
let cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.reverse()) await c();
  cleanups = [];
});

function autocheckpoint(ledger: { db: { sqlite: { pragma(s: string, o: { simple: true }): unknown } } }): unknown {
  return ledger.db.sqlite.pragma('wal_autocheckpoint', { simple: true });
}

describe('the WAL checkpoint worker', () => {
  it('takes checkpoints away from commits and copies every frame back from its own thread', async () => {
    const t = tempLedger();
    cleanups.push(t.cleanup);
    const checkpointer: Checkpointer = startCheckpointer(t.ledger.db, { intervalMs: 3_600_000, log: () => undefined });
    cleanups.push(() => checkpointer.stop());
    expect(autocheckpoint(t.ledger)).toBe(0);

    const gen = new HistoryGenerator(t.ledger, AGENT, 3);
    gen.register();
    for (let turn = 0; turn < 60; turn++) {
      gen.randomMutations();
      await gen.sync(turn);
    }
    // No commit checkpointed: the WAL holds every frame written since the database was created.
    const wal = path.join(t.dir, 'lineage.db-wal');
    const before = await checkpointer.checkpoint();
    expect(before.log).toBeGreaterThan(1000);
    expect(before.checkpointed).toBe(before.log);
    expect(before.busy).toBe(0);

    // The next write starts the WAL over, so it stays bounded by what arrives between checkpoints.
    gen.randomMutations();
    await gen.sync(60);
    const after = await checkpointer.checkpoint();
    expect(after.log).toBeLessThan(before.log);
    expect(after.checkpointed).toBe(after.log);
    expect(fs.statSync(wal).size).toBeGreaterThan(0);

    // The database file alone (WAL copied back) holds every entry.
    const count = t.ledger.db.sqlite.prepare('SELECT count(*) FROM ledger_entries').pluck().get();
    expect(count).toBe(gen.turns.length);

    await checkpointer.stop();
    expect(autocheckpoint(t.ledger)).toBe(1000);
    await expect(checkpointer.checkpoint()).rejects.toThrow(/stopped/);
  });

  it('checkpoints on its own timer', async () => {
    const t = tempLedger();
    cleanups.push(t.cleanup);
    const checkpointer = startCheckpointer(t.ledger.db, { intervalMs: 20, log: () => undefined });
    cleanups.push(() => checkpointer.stop());
    const gen = new HistoryGenerator(t.ledger, AGENT, 4);
    gen.register();
    await gen.sync(0);
    // A reader connection sees the WAL fully backfilled once the timer has run (no explicit call).
    const wal = path.join(t.dir, 'lineage.db-wal');
    const backfilled = () => {
      // wal-index header: mxFrame at byte 16, nBackfill at byte 96 of the -shm file (SQLite's WAL format)
      const shm = fs.readFileSync(path.join(t.dir, 'lineage.db-shm'));
      return { frames: shm.readUInt32LE(16), backfill: shm.readUInt32LE(96) };
    };
    expect(fs.existsSync(wal)).toBe(true);
    const deadline = Date.now() + 10_000;
    let state = backfilled();
    while (!(state.frames > 0 && state.backfill === state.frames) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      state = backfilled();
    }
    expect(state.frames).toBeGreaterThan(0);
    expect(state.backfill).toBe(state.frames);
  });
});
