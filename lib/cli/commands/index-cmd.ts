import cliProgress from 'cli-progress';
import type { Command } from 'commander';
import { rebuildIndex } from '@/lib/history/rebuild';
import { openLedger } from '@/lib/ledger';
import { existingDataDir } from '../options';
import { CliError, printJson } from '../output';

/**
 * `lineage index --rebuild [--data DIR]`: rebuilds the history index from the ledger's blobs, with a
 * progress bar on stderr, and prints `{"ok":true,"entries":N,"record_versions":M}`.
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
        const result = await rebuildIndex({
          ledger,
          onProgress: ({ done, total }) => {
            if (!started) {
              bar.start(total, 0);
              started = true;
            }
            bar.update(done);
          },
        });
        if (started) bar.stop();
        printJson({ ok: true, ...result });
      } catch (error) {
        if (started) bar.stop();
        throw error;
      }
    });
}
