import type { Command } from 'commander';
import { scaleOutRequested, type StorageFlags } from '@/lib/storage/scale-out-requested';
import { CliError, printJson, progress } from '../output';
import { requireOption } from '../parse-options';

/**
 * `lineage backup --out DIR [--data DIR]`: a consistent copy of a data directory, taken while a
 * server and syncs keep writing to it (lib/ledger/backup.ts): the database as of one moment (SQLite's
 * online backup), every blob its ledger names, `server-secret`; checked as `lineage doctor` checks a
 * data directory before it is renamed into place. DIR must not exist or be empty, and not be inside
 * the data directory. Restore: point `--data` at DIR (or copy it back). Prints
 * `{ok, out, snapshot_at, agents, entries, blobs, bytes, sequence_by_agent, files, written_whole}`.
 * The scale-out storage is refused: its backups are pg_dump and the bucket's own versioning.
 */
export function registerBackupCommand(program: Command): void {
  program
    .command('backup')
    .description('copy a data directory consistently (while a server and syncs run) into a new directory; restore by pointing --data at it')
    .option('--out <dir>', 'the backup\'s directory: must not exist, or be empty; not inside the data directory')
    .option('--data <dir>', 'data directory (default: $LINEAGE_DATA or ./data)')
    .option('--database-url <url>', 'refused (as is $LINEAGE_DATABASE_URL): back the scale-out storage\'s PostgreSQL up with pg_dump')
    .option('--blob-url <url>', 'refused (as is $LINEAGE_BLOB_URL): keep the scale-out storage\'s bucket with its versioning or replication')
    .action(async (opts: StorageFlags & { out?: string }) => {
      if (scaleOutRequested(process.env, opts)) {
        throw new CliError('invalid_argument',
          'lineage backup copies a data directory; the scale-out storage (--database-url/--blob-url, LINEAGE_DATABASE_URL/LINEAGE_BLOB_URL) is backed up with its own tools',
          'back PostgreSQL up with pg_dump (or its point-in-time recovery) and keep the bucket\'s blobs with its versioning or replication; see the README section "Outgrowing one machine"');
      }
      const out = requireOption(opts.out, '--out', 'pass --out DIR: a new (or empty) directory, outside the data directory');
      const [{ existingDataDir }, { backupDataDir, destinationProblem }, { dataDirOf }] = await Promise.all([
        import('../options'), import('@/lib/ledger/backup'), import('../storage'),
      ]);
      const dataDir = existingDataDir(dataDirOf(opts.data));
      const problem = destinationProblem(dataDir, out);
      if (problem !== null) throw new CliError('invalid_argument', `--out: ${problem}`, 'pass --out a new (or empty) directory outside the data directory; nothing was written');
      const result = await backupDataDir({ dataDir, out, onStep: progress });
      progress(`backed up ${result.agents} agent(s), ${result.entries} ledger entries and ${result.blobs} blobs to ${result.out}; restore by pointing --data at it`);
      printJson({ ok: true, ...result });
    });
}
