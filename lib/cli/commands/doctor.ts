import type { Command } from 'commander';
import { findDamagedBlobs, findUnledgeredBlobs, openLedger, recoverUnledgered } from '@/lib/ledger';
import { historyIndexer } from '@/lib/storage/embedded-ingest';
import { packingEnabled, requestPacking } from '@/lib/ledger/background-packer';
import { runPacker } from '@/lib/ledger/run-packer';
import { existingDataDir } from '../options';
import { printJson, progress } from '../output';

/**
 * `lineage doctor [--repair] [--data DIR]`: do the ledger and its blobs agree? Lists entries whose
 * blob is missing or damaged, and blobs with no entry — those that continue an agent's ledger are
 * acknowledged uploads whose commit was lost (a deleted lineage.db-wal). `--repair` re-ingests
 * those in order (run it with the server stopped), then packs what local syncs left whole in complete
 * packing groups (`packing`: what the pass did, or the pid of a background packer doing it).
 * Nothing is ever deleted. Prints one JSON object; `ok` is false (exit 1) while a problem remains.
 */
export function registerDoctorCommand(program: Command): void {
  program
    .command('doctor')
    .description('check that the ledger and its blobs agree; --repair re-ingests uploads whose commit was lost')
    .option('--repair', 're-ingest, in order, the blobs that continue an agent\'s ledger but have no entry')
    .option('--data <dir>', 'data directory (default: $LINEAGE_DATA or ./data)')
    .action(async (opts: { repair?: boolean; data?: string }) => {
      const ledger = openLedger(existingDataDir(opts.data));
      const recovered = opts.repair ? await recoverUnledgered(ledger, historyIndexer) : [];
      const packing = opts.repair ? await packLeftWhole(ledger.db.dataDir) : undefined;
      const damaged = await findDamagedBlobs(ledger);
      const unledgered = (await findUnledgeredBlobs(ledger)).map(({ file: _file, ...b }) => b);
      const lost = unledgered.filter((b) => b.chains);
      for (const d of damaged) progress(`damaged: ${d.problem}`);
      for (const b of lost) progress(`lost commit: agent ${b.agent_id} sequence ${b.sequence} (${b.kind}) has a blob but no ledger entry`);
      if (lost.length > 0 && !opts.repair) progress('run `lineage doctor --repair` with the server stopped to re-ingest them');
      const ok = damaged.length === 0 && lost.length === 0 && recovered.every((r) => r.recovered);
      printJson({ ok, damaged, unledgered, recovered, ...(packing ? { packing } : {}) });
      if (!ok) process.exitCode = 1;
    });
}

/** The pass a background packer would run, here and now (a whole pass: whatever was left whole). */
async function packLeftWhole(dataDir: string): Promise<{ packed: number; considered: number } | { running: number | null } | { off: true }> {
  if (!packingEnabled()) return { off: true };
  requestPacking(dataDir);
  const run = await runPacker({ dataDir });
  return run.ran ? { packed: run.packed, considered: run.considered } : { running: run.holder ?? null };
}
