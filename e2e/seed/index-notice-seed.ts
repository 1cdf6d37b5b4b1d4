/**
 * `npx tsx e2e/seed/index-notice-seed.ts DATA_DIR`: two agents whose last entries' folds were left
 * pending (a local sync's large upload), the first one's blob then damaged — what e2e/index-notice.spec.ts
 * serves. Prints `{ broken, healthy, pendingFrom }` as JSON.
 */
import fs from 'node:fs';
import path from 'node:path';
import { closeDatabase } from '@/db/client';
import { HistoryGenerator } from '@/lib/history/testing/generator';
import { openLedger } from '@/lib/ledger';
import type { FsBlobStore } from '@/lib/ledger/blob-store';

const BROKEN = '7b0f3c2e-aaaa-4a2b-8c3d-0000000000a1';
const HEALTHY = '7b0f3c2e-aaaa-4a2b-8c3d-0000000000a2';

const dataDir = process.argv[2];
if (!dataDir) throw new Error('usage: index-notice-seed.ts DATA_DIR');
const ledger = openLedger(dataDir);
const gens = [new HistoryGenerator(ledger, BROKEN, 61), new HistoryGenerator(ledger, HEALTHY, 62)];
for (const gen of gens) {
  gen.deferIndexFrom = 1;
  gen.register();
}
for (let turn = 0; turn < 3; turn++) {
  for (const gen of gens) {
    gen.randomMutations();
    await gen.sync(turn);
  }
}
const last = gens[0]!.turns.at(-1)!;
const { blob_key: key } = ledger.db.sqlite.prepare('SELECT blob_key FROM ledger_entries WHERE agent_id = ? AND seq = ? AND kind = ?').get(BROKEN, last.seq, last.kind) as { blob_key: string };
const whole = (ledger.blobs as FsBlobStore).pathOf(key);
const file = path.join(path.dirname(whole), fs.readdirSync(path.dirname(whole)).find((name) => name.startsWith(path.basename(whole)))!);
closeDatabase(ledger.db);
fs.writeFileSync(file, 'not the blob');
process.stdout.write(`${JSON.stringify({ broken: BROKEN, healthy: HEALTHY, pendingFrom: last.seq })}\n`);
