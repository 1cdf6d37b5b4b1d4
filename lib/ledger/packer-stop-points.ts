/**
 * Named moments of the blob packer where the race tests stop it (`LINEAGE_PACKER_STOP_AT=<name>`:
 * the process sends itself SIGSTOP there, the first time only, and goes on at SIGCONT), so that a
 * delete, a sync or a second packer runs at exactly that moment. Unset, each is one comparison.
 * - `locked`: the packer holds the data directory's lock, before its first pass;
 * - `step`: a blob's packed form is written and its whole file not yet removed (its step announced);
 * - `released`: the packer has let its lock go and not yet returned (nor exited).
 */
export type PackerStopPoint = 'locked' | 'step' | 'released';

const passed = new Set<PackerStopPoint>();

export function packerStopPoint(name: PackerStopPoint): void {
  if (process.env.LINEAGE_PACKER_STOP_AT !== name || passed.has(name)) return;
  passed.add(name);
  process.kill(process.pid, 'SIGSTOP');
}
