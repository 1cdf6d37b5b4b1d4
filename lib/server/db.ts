/**
 * The dashboard's handle on the data directory: the ledger is opened once per process
 * (`LINEAGE_DATA`, else `./data`) and shared by every route handler and server component.
 */
import { openLedger, type Ledger } from '@/lib/ledger/ledger';
import { resolveDataDir } from '@/lib/ledger/data-dir';

const globalForLedger = globalThis as unknown as { lineageLedger?: Ledger };

/** The process-wide ledger (survives Next's dev-mode module reloads). */
export function getLedger(): Ledger {
  const existing = globalForLedger.lineageLedger;
  if (existing && existing.db.sqlite.open) return existing;
  const ledger = openLedger(resolveDataDir());
  globalForLedger.lineageLedger = ledger;
  return ledger;
}
