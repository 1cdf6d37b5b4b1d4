import type { Command } from 'commander';
import { resolveDataDir } from '@/lib/ledger/data-dir';
import { describeScaleOut, scaleOutRequested } from '@/lib/storage/scale-out-requested';
import { SyncError } from './errors';
import { httpTarget } from './http-target';
import { localTarget } from './local-target';
import { storageTarget } from './storage-target';
import type { SyncTarget } from './target';

export interface TargetFlags {
  data?: string;
  server?: string;
  key?: string;
  databaseUrl?: string;
  blobUrl?: string;
}

/** A target and what ends it: the scale-out one holds a database pool until closed. */
export type ResolvedTarget = SyncTarget & { close(): Promise<void> };

/** Adds the flags that choose a target: the local data directory, the scale-out storage, or a server and its key. */
export function targetOptions(command: Command): Command {
  return command
    .option('--data <dir>', 'local data directory (default: $LINEAGE_DATA or ./data)')
    .option('--database-url <url>', 'postgres://… : sync into the scale-out storage directly (default: $LINEAGE_DATABASE_URL; with --blob-url)')
    .option('--blob-url <url>', 's3://bucket[/prefix] : the scale-out storage\'s blobs (default: $LINEAGE_BLOB_URL; AWS_* as the AWS SDK reads them)')
    .option('--server <url>', 'sync with an ALF service instead of the local data directory')
    .option('--key <key>', 'API key for --server (default: $ALF_API_KEY)');
}

/**
 * `--server URL --key KEY` speaks HTTP; a database or blob URL (flag or `LINEAGE_*`) is the
 * scale-out storage, read by lib/storage/config.ts like `lineage serve` reads it (its modules load
 * only then); otherwise the local ledger in the data directory.
 */
export async function resolveTarget(
  flags: TargetFlags,
  env: NodeJS.ProcessEnv = process.env,
  local: Pick<Parameters<typeof localTarget>[2] & object, 'startDetached'> = {},
  /** What the user ran (`lineage sync`, `lineage restore`, …): a server's refusal of the key names it. */
  command?: string,
): Promise<ResolvedTarget> {
  if (flags.server) {
    if (flags.databaseUrl !== undefined || flags.blobUrl !== undefined) {
      throw new SyncError('invalid_argument', 'use either --server or --database-url/--blob-url, not both');
    }
    const apiKey = flags.key ?? env.ALF_API_KEY;
    if (!apiKey) throw new SyncError('auth_failed', '--server needs an API key', 'pass --key KEY or set ALF_API_KEY (create one with `lineage keys create`)');
    return { ...httpTarget({ baseUrl: flags.server, apiKey, command }), close: async () => {} };
  }
  if (flags.key) throw new SyncError('invalid_argument', '--key only applies with --server');
  if (scaleOutRequested(env, flags)) return scaleOutTarget(flags, env);
  return { ...localTarget(resolveDataDir(flags.data, env), undefined, local), close: async () => {} };
}

async function scaleOutTarget(flags: TargetFlags, env: NodeJS.ProcessEnv): Promise<ResolvedTarget> {
  const { openStorage, StorageConfigError, storageConfigFrom } = await import('@/lib/storage/config');
  let config;
  try {
    config = storageConfigFrom(env, flags);
  } catch (error) {
    if (error instanceof StorageConfigError) throw new SyncError('invalid_argument', error.message, 'see the README section "Outgrowing one machine"');
    throw error;
  }
  if (config.backend !== 'scale-out') throw new Error('scale-out settings were given but not read as such');
  const scaleOut = config;
  const named = [flags.databaseUrl === undefined ? '' : ` --database-url ${hidePassword(flags.databaseUrl)}`, flags.blobUrl === undefined ? '' : ` --blob-url ${flags.blobUrl}`];
  return storageTarget({ open: () => openStorage(scaleOut), label: describeScaleOut(scaleOut.databaseUrl, scaleOut.blobs), flags: named.join('').trim() });
}

function hidePassword(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return url;
  }
}
