/**
 * The ledger handle of the dashboard callers not yet on the storage seam (whole-workspace downloads,
 * compare, blame, database records: see docs/MODULES.md): the embedded storage's own ledger — the one
 * `lineage serve` installed, else the process's embedded storage of `LINEAGE_DATA` — so every caller
 * in the process shares one database handle.
 */
import { resolveDataDir } from '@/lib/ledger/data-dir';
import type { Ledger } from '@/lib/ledger/ledger';
import { embeddedStorageFor, installedEmbedded } from '@/lib/storage/open';

/** The process-wide embedded ledger. */
export function getLedger(): Ledger {
  return (installedEmbedded() ?? embeddedStorageFor(resolveDataDir())).ledger;
}
