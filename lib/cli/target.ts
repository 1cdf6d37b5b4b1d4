import { resolveDataDir } from '@/lib/ledger/data-dir';
import { scaleOutRequested } from '@/lib/storage/scale-out-requested';
import { resolveTarget, type ResolvedTarget, type TargetFlags } from '@/lib/sync/targets';
import { closeAtCommandEnd } from './command-end';
import { creatableDir, parseServerUrl } from './parse-options';

/**
 * The target flags checked before anything is read or written: a `--server` that is an http(s)
 * URL (anything else failed inside fetch), a local data directory no file stands in the way of.
 */
export function checkTargetFlags(flags: TargetFlags, env: NodeJS.ProcessEnv = process.env): void {
  if (flags.server) parseServerUrl(flags.server);
  else if (!scaleOutRequested(env, flags)) {
    creatableDir(resolveDataDir(flags.data, env), '--data', 'pass --data DIR (or set LINEAGE_DATA) to a directory');
  }
}

/**
 * The sync target the flags name (`sync`, `sync --rebase`, `restore`); a scale-out one is closed when the command ends.
 * `command`: what the user ran (`lineage restore`), which a server's refusal of the key names.
 */
export async function cliTarget(flags: TargetFlags, command: string): Promise<ResolvedTarget> {
  checkTargetFlags(flags);
  const target = await resolveTarget(flags, process.env, {}, command);
  closeAtCommandEnd(target.close);
  return target;
}
