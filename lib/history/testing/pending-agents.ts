/**
 * Two agents of one tenant synced three times into a temporary ledger, each entry's fold left pending
 * (the next ingest folds the one before): the history index behind the ledger, for the tests of a
 * pending fold that fails (`index-notice.test.ts`, `index-fold-failure.test.ts`). The first agent's
 * last entry is the one a test damages: its blob key and its blob's file (whole, or its compressed form).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Ledger } from '@/lib/ledger';
import type { FsBlobStore } from '@/lib/ledger/blob-store';
import { HistoryGenerator } from './generator';
import { tempLedger } from './temp-ledger';

/** The blob file of `blobKey` (whole, or its compressed form). */
export function blobFile(ledger: Ledger, blobKey: string): string {
  const whole = (ledger.blobs as FsBlobStore).pathOf(blobKey);
  return path.join(path.dirname(whole), fs.readdirSync(path.dirname(whole)).find((name) => name.startsWith(path.basename(whole)))!);
}

export async function twoPendingAgents(p: { broken: string; healthy: string; tenant: string; seeds: [number, number]; cleanups: (() => void)[] }) {
  const t = tempLedger();
  p.cleanups.push(t.cleanup);
  const gens = [new HistoryGenerator(t.ledger, p.broken, p.seeds[0]), new HistoryGenerator(t.ledger, p.healthy, p.seeds[1])];
  for (const gen of gens) {
    gen.deferIndexFrom = 1;
    gen.register(p.tenant);
  }
  for (let turn = 0; turn < 3; turn++) {
    for (const gen of gens) {
      gen.randomMutations();
      await gen.sync(turn);
    }
  }
  const last = gens[0]!.turns.at(-1)!;
  const row = t.ledger.db.sqlite.prepare('SELECT blob_key FROM ledger_entries WHERE agent_id = ? AND seq = ? AND kind = ?').get(p.broken, last.seq, last.kind) as { blob_key: string };
  return { ...t, last, key: row.blob_key, file: blobFile(t.ledger, row.blob_key) };
}
