import type { Command } from 'commander';
import type { DamagedBlob } from '@/lib/ledger/consistency';
import type { Ledger } from '@/lib/ledger/ledger';
import { isLedgerError } from '@/lib/ledger/errors';
import { CliError, printJson, progress } from '../output';
import { cliStorageConfig, openScaleOut, storageOptions, type ScaleOutConfig, type StorageFlags } from '../storage';

/** The rebuild stops at the first damaged blob (and rolls back): the error lists every one. */
function everyDamagedBlob(damaged: DamagedBlob[], where: string): CliError {
  const list = damaged.map((d) => `agent ${d.agent_id} sequence ${d.sequence} (${d.kind}, blob ${d.blob_key})`).join('; ');
  return new CliError('blob_corrupt', `${damaged.length} ledger blob(s) are missing or damaged, so the index was not rebuilt (it is unchanged): ${list}`,
    `restore those ${where} from a backup, then run \`lineage index --rebuild\` again; \`lineage doctor\` lists them too`);
}

/** The data directory's rebuild, with a progress bar, under the rebuild marker (a server there answers uploads 503). */
async function rebuildEmbedded(dataDir: string): Promise<{ entries: number; record_versions: number }> {
  const [{ default: cliProgress }, { rebuildIndex }, ledgerModule, { existingDataDir }] = await Promise.all([
    import('cli-progress'), import('@/lib/history/rebuild'), import('@/lib/ledger'), import('../options'),
  ]);
  const ledger: Ledger = ledgerModule.openLedger(existingDataDir(dataDir));
  const bar = new cliProgress.SingleBar(
    { stream: process.stderr, format: 'indexing [{bar}] {value}/{total} entries', hideCursor: false, noTTYOutput: false },
    cliProgress.Presets.shades_classic,
  );
  let started = false;
  try {
    const result = await ledgerModule.withRebuildMarker(ledger.db.dataDir, () => rebuildIndex({
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
    return result;
  } catch (error) {
    if (started) bar.stop();
    if (isLedgerError(error, 'blob_corrupt')) throw everyDamagedBlob(await ledgerModule.findDamagedBlobs(ledger), 'files under <data>/blobs');
    throw error;
  }
}

/**
 * PostgreSQL's rebuild from the bucket, under the advisory lock `rebuild` (a second one anywhere is
 * refused `busy`) and in one transaction holding every agent's row (uploads wait for it).
 */
async function rebuildScaleOut(config: ScaleOutConfig): Promise<{ entries: number; record_versions: number }> {
  const storage = await openScaleOut(config);
  progress(`lineage index: rebuilding the PostgreSQL index from s3://${config.blobs.bucket}${config.blobs.prefix ? `/${config.blobs.prefix}` : ''} (uploads wait until it is done)…`);
  try {
    return await storage.rebuildIndex();
  } catch (error) {
    if (!isLedgerError(error, 'blob_corrupt')) throw error;
    const { findDamagedEntries } = await import('@/lib/storage/consistency');
    throw everyDamagedBlob(await findDamagedEntries(storage), 'objects (bucket versioning)');
  }
}

/**
 * The data directory's pending entries folded (lib/history/pending-index.ts): what a local sync of
 * a large change starts in the background. The scale-out backend indexes every entry as it is appended.
 */
async function catchUpEmbedded(dataDir: string): Promise<{ folded: number }> {
  const [{ indexFailure, pendingEntries, runBackgroundCatchUp }, ledgerModule, { existingDataDir }] = await Promise.all([
    import('@/lib/history/pending-index'), import('@/lib/ledger'), import('../options'),
  ]);
  const ledger: Ledger = ledgerModule.openLedger(existingDataDir(dataDir));
  try {
    return { folded: await runBackgroundCatchUp(ledger) };
  } catch (error) {
    if (!isLedgerError(error)) throw error;
    // The entry not folded: the one the catch-up recorded (`lineage doctor` names it too), else the first pending.
    const entry = indexFailure(ledger.db.dataDir, ledger.db.sqlite) ?? pendingEntries(ledger.db.sqlite)[0];
    if (entry === undefined) throw error;
    throw new CliError(error.code, `the history index was not caught up: agent ${entry.agent_id} sequence ${entry.sequence} (${entry.kind}) is stored in the ledger but could not be folded: ${error.message}`,
      `${error.code === 'disk_full' ? 'free some space, then run' : 'run'} \`lineage index --catch-up --data ${dataDir}\` again; until then the dashboard and search lack that entry and what follows it`);
  }
}

/**
 * `lineage index --rebuild [--data DIR | --database-url … --blob-url …]`: rebuilds the history index
 * from the ledger's blobs and prints `{"ok":true,"entries":N,"record_versions":M}`.
 * `lineage index --catch-up [--data DIR]`: folds the entries a local sync appended without indexing
 * them (a sync starts it in the background) and prints `{"ok":true,"folded":N}`.
 */
export function registerIndexCommand(program: Command): void {
  storageOptions(program
    .command('index')
    .description('rebuild the history index from the ledger, or fold the entries a local sync left to it')
    .option('--rebuild', 'wipe the index and replay every ledger entry from its blob')
    .option('--catch-up', 'fold the ledger entries a local sync appended without indexing them (readers do it too)'))
    .action(async (opts: StorageFlags & { rebuild?: boolean; catchUp?: boolean }) => {
      if (opts.rebuild === opts.catchUp) {
        throw new CliError('invalid_argument', opts.rebuild ? 'choose one of --rebuild and --catch-up' : 'nothing to do', 'run `lineage index --rebuild` (or `--catch-up`)');
      }
      const config = await cliStorageConfig(opts, 'index');
      if (opts.catchUp) {
        printJson({ ok: true, ...(config.backend === 'scale-out' ? { folded: 0 } : await catchUpEmbedded(config.dataDir)) });
        return;
      }
      const result = config.backend === 'scale-out' ? await rebuildScaleOut(config) : await rebuildEmbedded(config.dataDir);
      printJson({ ok: true, ...result });
    });
}
