import type { Command } from 'commander';
import { StorageConfigError, storageConfigFrom } from '@/lib/storage/config';
import { migrateDataDir } from '@/lib/storage/migrate';
import { existingDataDir } from '../options';
import { CliError, printJson, progress } from '../output';

/**
 * `lineage migrate --from-data DIR [--database-url URL] [--blob-url s3://…]`: copies an embedded
 * data directory into the scale-out backend the flags or `LINEAGE_DATABASE_URL` / `LINEAGE_BLOB_URL`
 * (+ the AWS settings, `LINEAGE_SECRET`) name, rebuilds its index and verifies the copy; prints
 * `{"ok":true,"agents":…,"entries":…,"blobs_copied":…,…}`. Re-run it after an interruption: it
 * completes the copy. Stop the servers on DIR first, so nothing is written there meanwhile.
 */
export function registerMigrateCommand(program: Command): void {
  program
    .command('migrate')
    .description('copy an embedded data directory into PostgreSQL + S3 (resumable, verified)')
    .requiredOption('--from-data <dir>', 'the embedded data directory to copy')
    .option('--database-url <url>', 'PostgreSQL to copy into (default: $LINEAGE_DATABASE_URL)')
    .option('--blob-url <url>', 's3://bucket[/prefix] to copy the blobs into (default: $LINEAGE_BLOB_URL)')
    .action(async (opts: { fromData: string; databaseUrl?: string; blobUrl?: string }) => {
      const dataDir = existingDataDir(opts.fromData);
      let target;
      try {
        // A copy signs no URL and no session: the servers' LINEAGE_SECRET is not needed here.
        const env = { ...process.env, LINEAGE_SECRET: process.env.LINEAGE_SECRET || '0'.repeat(64) };
        target = storageConfigFrom(env, { databaseUrl: opts.databaseUrl, blobUrl: opts.blobUrl });
      } catch (error) {
        if (error instanceof StorageConfigError) throw new CliError('invalid_argument', error.message, 'see `lineage migrate --help` and the README section "Outgrowing one machine"');
        throw error;
      }
      if (target.backend !== 'scale-out') {
        throw new CliError('invalid_argument', 'no target: pass --database-url postgres://… and --blob-url s3://… (or set LINEAGE_DATABASE_URL and LINEAGE_BLOB_URL)');
      }
      printJson({ ok: true, from: dataDir, ...(await migrateDataDir({ dataDir, target, progress })) });
    });
}
