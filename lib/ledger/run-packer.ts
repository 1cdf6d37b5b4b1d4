/**
 * The packer's work (background-packer.ts starts it as `lineage pack-blobs`; `doctor --repair` and
 * the local target's inline option call it directly): under the data directory's packer lock,
 * every pending request is served by a pass over the complete groups of every agent
 * (`FsBlobStore.packStored({ completeOnly: true })`). It never opens the database: the blob files
 * alone say what to pack, and ingests, reads and deletes may run beside it (pack-intents.ts).
 */
import path from 'node:path';
import { finishRequest, packingEnabled, packingPending, requestPacking, startBackgroundPacker, takeRequest } from './background-packer';
import { FsBlobStore } from './blob-store';
import type { Ledger } from './ledger';
import { removeDeadAnnouncements } from './pack-intents';
import { acquirePackerLock, livePacker } from './packer-lock';
import { packerStopPoint } from './packer-stop-points';

export interface PackerRun {
  /** False when another live packer held the lock (it serves the request): nothing was done here. */
  ran: boolean;
  /** Its pid, when `ran` is false. */
  holder?: number | null;
  passes: number;
  packed: number;
  considered: number;
}

/**
 * `beforeRelease` is told what each hold of the lock did (`lineage pack-blobs` logs it), while the
 * lock is still held: whoever waits for the lock to be free (`waitForPacker`) finds it told.
 */
export async function runPacker(p: { dataDir: string; beforeRelease?: (hold: Omit<PackerRun, 'ran' | 'holder'>) => void }): Promise<PackerRun> {
  const store = new FsBlobStore(path.join(p.dataDir, 'blobs'), { pack: 'deferred' });
  const run: PackerRun = { ran: false, passes: 0, packed: 0, considered: 0 };
  for (;;) {
    const lock = acquirePackerLock(p.dataDir);
    if (!lock) return run.ran ? run : { ...run, holder: livePacker(p.dataDir) };
    run.ran = true;
    packerStopPoint('locked');
    const hold = { passes: 0, packed: 0, considered: 0 };
    try {
      removeDeadAnnouncements(store.root);
      while (!lock.signal.aborted && takeRequest(p.dataDir)) {
        const pass = await store.packStored({ completeOnly: true, signal: lock.signal });
        hold.passes++;
        hold.packed += pass.packed;
        hold.considered += pass.considered;
        // A pass cut short leaves the request taken: the next packer does it again.
        if (!lock.signal.aborted) finishRequest(p.dataDir);
      }
    } finally {
      run.passes += hold.passes;
      run.packed += hold.packed;
      run.considered += hold.considered;
      try {
        p.beforeRelease?.(hold);
      } finally {
        lock.release();
      }
    }
    packerStopPoint('released');
    // A request made while the lock was let go saw it still held, and started nobody: serve it.
    if (lock.signal.aborted || !packingPending(p.dataDir)) return run;
  }
}

/**
 * `lineage serve`'s maintenance: blobs left whole in complete groups — by syncs whose packer was
 * killed or never started, or with packing off at the time — get the background packer even when
 * no sync comes any more. Looks at file names only; starts nothing when there is nothing to pack,
 * nor again for the very blobs its last pass over them left whole (they do not pack).
 */
export async function startPackingLeftWhole(ledger: Ledger, start: (dataDir: string) => 'started' | 'running' | 'idle' = startBackgroundPacker): Promise<'started' | 'running' | 'idle'> {
  const { blobs } = ledger;
  const { dataDir } = ledger.db;
  if (!packingEnabled() || !(blobs instanceof FsBlobStore)) return 'idle';
  const left = await blobs.wholeToPackKeys({ completeOnly: true });
  if (!packingPending(dataDir)) {
    if (left.length === 0) return 'idle';
    // Every blob left whole was there when this process last started a pass, and that pass is done
    // (none pending): it left them whole (too small to pack, or no base shrinks them). Starting it
    // again would do the same, every ten minutes for as long as the server runs.
    const before = startedFor.get(dataDir);
    if (before && left.every((key) => before.has(key))) return 'idle';
    requestPacking(dataDir);
  }
  startedFor.set(dataDir, new Set(left));
  return start(dataDir);
}

/** Per data directory, the blobs left whole when this process last started a pass over them. */
const startedFor = new Map<string, Set<string>>();
