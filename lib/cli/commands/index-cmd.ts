import cliProgress from 'cli-progress';
import type { Command } from 'commander';
import { rebuildIndex } from '@/lib/history/rebuild';
import { findDamagedBlobs, isLedgerError, openLedger, withRebuildMarker, type Ledger } from '@/lib/ledger';
import { existingDataDir } from '../options';
import { CliError, printJson } from '../output';

/** The rebuild stops at the first damaged blob (and rolls back): the error lists every one. */
async function everyDamagedBlob(ledger: Ledger): Promise<CliError> {
  const damaged = await findDamagedBlobs(ledger);
  const list = damaged.map((d) => `agent ${d.agent_id} sequence ${d.sequence} (${d.kind}, blob ${d.blob_key})`).join('; ');
  return new CliError('blob_corrupt', `${damaged.length} ledger blob(s) are missing or damaged, so the index was not rebuilt (it is unchanged): ${list}`,
    'restore those files under <data>/blobs from a backup, then run `lineage index --rebuild` again; `lineage doctor` lists them too');
}

/**
 * `lineage index --rebuild [--data DIR]`: rebuilds the history index from the ledger's blobs, with a
 * progress bar on stderr, and prints `{"ok":true,"entries":N,"record_versions":M}`. While it runs it holds
 * the rebuild marker, so a server on the same directory answers uploads 503 + Retry-After.
 */
export function registerIndexCommand(program: Command): void {
  program
    .command('index')
    .description('rebuild the history index from the ledger')
    .option('--rebuild', 'wipe the index and replay every ledger entry from its blob')
    .option('--data <dir>', 'data directory (default: $LINEAGE_DATA or ./data)')
    .action(async (opts: { rebuild?: boolean; data?: string }) => {
      if (!opts.rebuild) throw new CliError('invalid_argument', 'nothing to do', 'run `lineage index --rebuild`');
      const ledger = openLedger(existingDataDir(opts.data));
      const bar = new cliProgress.SingleBar(
        { stream: process.stderr, format: 'indexing [{bar}] {value}/{total} entries', hideCursor: false, noTTYOutput: false },
        cliProgress.Presets.shades_classic,
      );
      let started = false;
      try {
        const result = await withRebuildMarker(ledger.db.dataDir, () => rebuildIndex({
          ledger,
          onProgress: ({ done, total }) => {
            if (!started) {
              bar.start(total, 0);
              started = true;
            }
            bar.update(done);
          },
        }));
        if (started) bar.stop();
        printJson({ ok: true, ...result });
      } catch (error) {
        if (started) bar.stop();
        if (isLedgerError(error, 'blob_corrupt')) throw await everyDamagedBlob(ledger);
        throw error;
      }
    });
}
