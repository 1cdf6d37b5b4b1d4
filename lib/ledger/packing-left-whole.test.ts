import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { closeDatabase } from '@/db/client';
import { packingPending, requestPacking } from './background-packer';
import { FsBlobStore } from './blob-store';
import { openLedger } from './ledger';
import { crashBlobAt, crashKey } from './packed-crash-data';
import { runPacker, startPackingLeftWhole } from './run-packer';

/**
 * `lineage serve` asks every ten minutes whether blobs are left whole in complete groups, and starts
 * the background packer for them. A blob a pass leaves whole (too small to pack, or no base shrinks
 * it) used to start a packer process every ten minutes for as long as the server ran.
 */

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

it('the serve maintenance starts the packer for blobs left whole, not again for those its last pass left whole, and again when new ones come or a pass is asked for', async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'left-whole-'));
  dirs.push(dataDir);
  const ledger = openLedger(dataDir, { packing: 'deferred' });
  try {
    const store = ledger.blobs as FsBlobStore;
    // Group 0 complete (a blob of group 1 follows it); its seq 1 is too small to pack.
    await store.put(crashKey(0), crashBlobAt(199));
    await store.put(crashKey(1), new TextEncoder().encode('tiny'));
    await store.put(crashKey(64), crashBlobAt(64));
    const starts: string[] = [];
    const start = (dir: string) => { starts.push(dir); return 'started' as const; };
    // The packer runs here, in process, where the server would spawn it.
    const tick = async () => {
      const started = await startPackingLeftWhole(ledger, start);
      if (started === 'started') await runPacker({ dataDir });
      return started;
    };

    expect(await tick()).toBe('started');
    expect(await store.wholeToPackKeys({ completeOnly: true })).toEqual([crashKey(1)]);
    expect(packingPending(dataDir)).toBe(false);
    expect(await tick()).toBe('idle');
    expect(await tick()).toBe('idle');

    // New blobs left whole: a pass is started for them (the one that packs is packed).
    await store.put(crashKey(2), crashBlobAt(200)); // a line more than seq 0: packs against it
    await store.put(crashKey(3), new TextEncoder().encode('tiny too'));
    expect(await tick()).toBe('started');
    expect(await store.wholeToPackKeys({ completeOnly: true })).toEqual([crashKey(1), crashKey(3)]);
    expect(fs.existsSync(`${store.pathOf(crashKey(2))}.packed`)).toBe(true);
    expect(await tick()).toBe('idle');

    // A pass asked for (a sync's request) is started whatever was seen before.
    requestPacking(dataDir);
    expect(await tick()).toBe('started');
    expect(starts).toEqual([dataDir, dataDir, dataDir]);
    expect(await tick()).toBe('idle');
  } finally {
    closeDatabase(ledger.db);
  }
});
