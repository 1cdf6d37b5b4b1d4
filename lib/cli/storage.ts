/**
 * The storage a CLI command reads and writes, chosen in one place for every command that takes
 * `--data` (issue 21 §2): a database or blob URL, as `--database-url`/`--blob-url` or
 * `LINEAGE_DATABASE_URL`/`LINEAGE_BLOB_URL`, is the scale-out storage, read by `storageConfigFrom`
 * as `lineage serve` reads it (a flag over its variable; a bad or half setting is an
 * `invalid_argument` error before anything opens); otherwise the embedded data directory. The
 * scale-out modules (zod, `pg`, the AWS SDK) load only when those settings are there.
 */
import type { Command } from 'commander';
import { resolveDataDir } from '@/lib/ledger/data-dir';
import type { StorageConfig } from '@/lib/storage/config';
import { storageFor } from '@/lib/storage/open';
import { scaleOutRequested, type StorageFlags } from '@/lib/storage/scale-out-requested';
import type { LineageStorage } from '@/lib/storage/types';
import { closeAtCommandEnd } from './command-end';
import { CliError } from './output';
import { creatableDir } from './parse-options';

export type { StorageFlags };
export type ScaleOutConfig = Extract<StorageConfig, { backend: 'scale-out' }>;

/** `--data`, `--database-url`, `--blob-url`: where a command's storage is. */
export function storageOptions(command: Command): Command {
  return command
    .option('--data <dir>', 'data directory (default: $LINEAGE_DATA or ./data)')
    .option('--database-url <url>', 'postgres://… : the scale-out storage\'s PostgreSQL (default: $LINEAGE_DATABASE_URL; with --blob-url and $LINEAGE_SECRET)')
    .option('--blob-url <url>', 's3://bucket[/prefix] : the scale-out storage\'s blobs (default: $LINEAGE_BLOB_URL; AWS_* as the AWS SDK reads them)');
}

/** The embedded data directory (`--data`, `$LINEAGE_DATA`, `./data`), refused when a file stands where it would be. */
export function dataDirOf(flag: string | undefined): string {
  return creatableDir(resolveDataDir(flag), '--data', 'pass --data DIR (or set LINEAGE_DATA) to a directory');
}

/** The storage `flags` and the environment name; `command` names the help to see on a bad setting. */
export async function cliStorageConfig(flags: StorageFlags, command: string): Promise<StorageConfig> {
  if (!scaleOutRequested(process.env, flags)) return { backend: 'embedded', dataDir: dataDirOf(flags.data), secret: null };
  const { StorageConfigError, storageConfigFrom } = await import('@/lib/storage/config');
  try {
    return storageConfigFrom(process.env, flags);
  } catch (error) {
    if (error instanceof StorageConfigError) {
      throw new CliError('invalid_argument', error.message, `see \`lineage ${command} --help\` and the README section "Outgrowing one machine"`);
    }
    throw error;
  }
}

/** Opens the scale-out storage for the rest of the command (closed when it ends). */
export async function openScaleOut(config: ScaleOutConfig): Promise<LineageStorage> {
  const { openStorage } = await import('@/lib/storage/config');
  const storage = await openStorage(config);
  closeAtCommandEnd(() => storage.close());
  return storage;
}

/**
 * The command's storage. `mustExist`: a command that only reads refuses a data directory that is
 * not there (a mistyped `--data`) instead of creating an empty one.
 */
export async function cliStorage(flags: StorageFlags, options: { command: string; mustExist: boolean }): Promise<LineageStorage> {
  const config = await cliStorageConfig(flags, options.command);
  if (config.backend === 'scale-out') return openScaleOut(config);
  const dataDir = options.mustExist ? (await import('./options')).existingDataDir(config.dataDir) : config.dataDir;
  return storageFor({ backend: 'embedded', dataDir });
}
