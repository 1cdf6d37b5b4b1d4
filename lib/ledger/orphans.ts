import fs from 'node:fs/promises';
import path from 'node:path';
import { ledger_entries } from '@/db/schema';
import { FsBlobStore } from './blob-store';
import type { Ledger } from './ledger';

/**
 * Deletes blob files no ledger entry points at: uploads that lost the sequence race, or whose
 * process died between the blob write and the commit (the crash-safe order leaves at most those).
 * Only files older than `graceMs` go, so a blob whose transaction is about to commit is never
 * touched; leftover temp files of interrupted writes go too.
 */
export async function sweepOrphanBlobs(params: { ledger: Ledger; now: Date; graceMs?: number }): Promise<{ removed: number }> {
  const store = params.ledger.blobs;
  if (!(store instanceof FsBlobStore)) return { removed: 0 };
  const referenced = new Set(
    params.ledger.db.db.select({ key: ledger_entries.blob_key }).from(ledger_entries).all().map((r) => path.basename(store.pathOf(r.key))),
  );
  const cutoff = params.now.getTime() - (params.graceMs ?? 15 * 60 * 1000);
  let names: string[];
  try {
    names = await fs.readdir(store.root);
  } catch {
    return { removed: 0 };
  }
  let removed = 0;
  for (const name of names) {
    if (referenced.has(name) || !/\.alf(-delta)?(\.tmp-.*)?$/.test(name)) continue;
    const file = path.join(store.root, name);
    const stat = await fs.stat(file).catch(() => null);
    if (!stat?.isFile() || stat.mtimeMs > cutoff) continue;
    await fs.rm(file, { force: true });
    removed++;
  }
  return { removed };
}
