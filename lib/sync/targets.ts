import type { Command } from 'commander';
import { resolveDataDir } from '@/lib/ledger/data-dir';
import { SyncError } from './errors';
import { httpTarget } from './http-target';
import { localTarget } from './local-target';
import type { SyncTarget } from './target';

export interface TargetFlags {
  data?: string;
  server?: string;
  key?: string;
}

/** Adds the flags that choose a target: the local data directory, or a server and its key. */
export function targetOptions(command: Command): Command {
  return command
    .option('--data <dir>', 'local data directory (default: $LINEAGE_DATA or ./data)')
    .option('--server <url>', 'sync with an ALF service instead of the local data directory')
    .option('--key <key>', 'API key for --server (default: $ALF_API_KEY)');
}

/** `--server URL --key KEY` speaks HTTP; otherwise the local ledger in the data directory. */
export function resolveTarget(flags: TargetFlags, env: NodeJS.ProcessEnv = process.env): SyncTarget {
  if (flags.server) {
    const apiKey = flags.key ?? env.ALF_API_KEY;
    if (!apiKey) throw new SyncError('auth_failed', '--server needs an API key', 'pass --key KEY or set ALF_API_KEY (create one with `lineage keys create`)');
    return httpTarget({ baseUrl: flags.server, apiKey });
  }
  if (flags.key) throw new SyncError('invalid_argument', '--key only applies with --server');
  return localTarget(resolveDataDir(flags.data, env));
}
