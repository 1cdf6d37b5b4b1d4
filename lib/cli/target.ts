import { resolveTarget, type ResolvedTarget, type TargetFlags } from '@/lib/sync/targets';
import { closeAtCommandEnd } from './command-end';

/** The sync target the flags name (`sync`, `sync --rebase`, `restore`); a scale-out one is closed when the command ends. */
export async function cliTarget(flags: TargetFlags): Promise<ResolvedTarget> {
  const target = await resolveTarget(flags);
  closeAtCommandEnd(target.close);
  return target;
}
